/** The local signing agent: built in the agent issue (order 6). This package exists so the layout is in place. */
export const AGENT_VERSION = '0.1.0';
