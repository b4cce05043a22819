/** @tawqi/agent: the local signing agent's core (the shells live in cli/ and electron/). */
export { AGENT_VERSION, startAgent, type RunningAgent, type StartAgentOptions } from './core/agent.js';
export { agentDataDir, loadConfig, AgentConfigSchema, type AgentConfig } from './core/config.js';
export { analyzeCertificates, type CertificateEntry, type NotOfferedReason } from './core/certificates.js';
export { createLogger, type Logger, type LogLevel } from './core/log.js';
export { TokenBackend, type Pkcs11Api, type RawToken, type ScanResult, type SignJob, type SignOutcome } from './core/pkcs11/backend.js';
export { describePinState, pinStateFromFlags } from './core/pkcs11/flags.js';
export { chooseMechanism, sha256DigestInfo, type KeyType, type MechanismChoice } from './core/pkcs11/mechanisms.js';
export {
  discoverModules,
  expandPath,
  KNOWN_MODULES,
  type ConfiguredModule,
  type KnownModule,
  type ModuleSpec,
} from './core/pkcs11/modules.js';
export { TokenService } from './core/pkcs11/tokens.js';
export { fetchPreview, type Preview } from './core/preview.js';
export { AgentServer, AGENT_NAME } from './core/server.js';
export { CLOCK_SKEW_S, JtiRegistry, verifyTicket, type TicketCheck } from './core/ticket.js';
export { fetchServerKey, formatFingerprint, keyFingerprint, normalizeOrigin, TrustStore, type TrustedServer } from './core/trust.js';
export type { AgentNotice, AgentUi, ConsentRequest, PinRequest } from './core/ui.js';
