/**
 * The token worker: owns every PKCS#11 module the agent loads and runs the synchronous pkcs11js
 * calls one at a time, off the main thread, so the WebSocket stays responsive even while a PIN-pad
 * login waits for the user.
 */
import { parentPort } from 'node:worker_threads';
import pkcs11js from 'pkcs11js';
import { TokenBackend, type Pkcs11Api } from './backend.js';
import type { WorkerReply, WorkerRequest } from './rpc.js';

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread');

const backend = new TokenBackend(() => new pkcs11js.PKCS11() as unknown as Pkcs11Api);

port.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  const transfer: ArrayBuffer[] = [];
  try {
    let value: unknown;
    switch (request.op) {
      case 'init':
        value = backend.init(request.modules);
        break;
      case 'scan':
        value = backend.scan(request.objects);
        break;
      case 'sign': {
        const outcome = backend.sign(request.job);
        if (outcome.ok) transfer.push(outcome.signature.buffer as ArrayBuffer);
        value = outcome;
        break;
      }
      case 'flags':
        value = backend.tokenFlags(request.slot);
        break;
      case 'close':
        backend.close();
        value = null;
        break;
    }
    reply = { id: request.id, ok: true, value };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply, transfer);
  if (request.op === 'close') port.close();
});
