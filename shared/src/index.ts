export * from './errors.js';
export * from './ids.js';
export * from './agentProtocol.js';
export * from './pageApi.js';
