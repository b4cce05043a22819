import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { assertFileKey, type FileStorage } from './storage.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO, Ceph, …); unset: AWS S3 of the region. */
  endpoint?: string;
  /** https://endpoint/bucket/key instead of https://bucket.endpoint/key (S3-compatible servers usually want it). */
  forcePathStyle: boolean;
  /** Put before every key ('' or ending in '/'). */
  prefix: string;
  /** Unset: the SDK's default credential chain (AWS_* variables, shared files, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** A connection that does not open in this time, or a request not answered in full in this time, fails (the seal job retries). */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 60_000;

const contentType = (key: string) => (key.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream');

/**
 * Files as objects of an S3-compatible bucket: object key = prefix + file key. A put is one
 * PutObject (atomic: a reader gets the old object or the new one) carrying the SHA-256 both as the
 * checksum S3 verifies on arrival (x-amz-checksum-sha256) and as metadata (x-amz-meta-sha256, for
 * an operator comparing with pdf_sha256). A missing object reads as null (NoSuchKey); every other
 * error (access denied, no such bucket, a bad signature, the network) propagates. Credentials stay in the client.
 */
export class S3Storage implements FileStorage {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.description = `s3 bucket ${options.bucket}${options.prefix ? ` prefix ${options.prefix}` : ''} at ${options.endpoint ?? `AWS ${options.region}`}`;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
    });
  }

  private objectKey(key: string): string {
    assertFileKey(key);
    return this.prefix + key;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.objectKey(key);
    const sha256 = createHash('sha256').update(bytes).digest();
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key,
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: contentType(key),
        ChecksumSHA256: sha256.toString('base64'),
        Metadata: { sha256: sha256.toString('hex') },
      }),
    );
  }

  async get(key: string): Promise<Buffer | null> {
    const Key = this.objectKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      const bytes = await out.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if (err instanceof NoSuchKey) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  /**
   * Read an object no file key can name (its name starts with '.'): "no such key" proves the
   * endpoint, the bucket, the credentials and read access. (Not HeadBucket: a HEAD answer carries no
   * error code, and some S3-compatible servers sign bucket addresses differently.) Without
   * s3:ListBucket, S3 answers AccessDenied for a missing key, and this check fails: grant it.
   */
  async check(): Promise<void> {
    try {
      await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: `${this.prefix}.tawqi-check` }));
    } catch (err) {
      if (err instanceof NoSuchKey) return;
      const why = err instanceof Error ? `${err.name}${err.message && err.message !== err.name ? `: ${err.message}` : ''}` : String(err);
      throw new Error(
        `${this.description} does not answer (check TAWQI_S3_BUCKET, TAWQI_S3_ENDPOINT, TAWQI_S3_REGION and the credentials): ${why}`,
        { cause: err },
      );
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
