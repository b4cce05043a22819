/**
 * A real S3-compatible server for tests: @20minutes/s3rver (the maintained fork of s3rver; its
 * 4.x line runs on Node 20) on 127.0.0.1, port 0, keeping buckets as plain files in a temporary
 * directory. It checks AWS Signature V4 against its one built-in key pair (S3RVER / S3RVER), so a
 * wrong secret is refused as by S3. The peer has its own SDK client for looking into the bucket
 * independently of the server's storage code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, S3Client } from '@aws-sdk/client-s3';

export const S3_ACCESS_KEY_ID = 'S3RVER';
export const S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface S3Peer {
  endpoint: string;
  bucket: string;
  /** The settings that point a Tawqi server at this bucket (TAWQI_STORAGE=s3 and the TAWQI_S3_*), plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Every object key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** An object's bytes and user metadata, read with the peer's own client; null when missing. */
  object(key: string): Promise<{ bytes: Buffer; metadata: Record<string, string>; contentType?: string } | null>;
  close(): Promise<void>;
}

export async function startS3Peer(bucket = 'tawqi-test'): Promise<S3Peer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'tawqi-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  });
  // s3rver signs a bucket address as /bucket, the SDK as /bucket/ (object addresses agree): this
  // client drops the slash before signing, so listing works while signatures are still checked.
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { path?: string };
      if (request.path && /^\/[^/]+\/$/.test(request.path)) request.path = request.path.slice(0, -1);
      return next(args);
    },
    { step: 'build', name: 's3rverBucketPath' },
  );
  return {
    endpoint,
    bucket,
    env: (extra = {}) => ({
      TAWQI_STORAGE: 's3',
      TAWQI_S3_BUCKET: bucket,
      TAWQI_S3_ENDPOINT: endpoint,
      TAWQI_S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID,
      TAWQI_S3_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY,
      ...extra,
    }),
    keys: async () => {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    object: async (key) => {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return { bytes: Buffer.from(await got.Body!.transformToByteArray()), metadata: got.Metadata ?? {}, contentType: got.ContentType };
      } catch (err) {
        if (err instanceof NoSuchKey) return null;
        throw err;
      }
    },
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
