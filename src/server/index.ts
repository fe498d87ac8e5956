export { startServer, isLoopback, DEFAULT_PORT, type ServeOptions, type RunningServer } from './serve.js';
export { buildApp, type ServerState, type AppOptions } from './app.js';
export { authFileOf, loadAuth, describeAuth, tokenDigest, SCOPES, type Principal, type Scope, type AuthConfig } from './auth.js';
