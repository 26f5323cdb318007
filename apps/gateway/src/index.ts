export { type Authenticator, type AuthOutcome, createAuthenticator } from './auth/authenticator.js';
export {
  ConfigError,
  type GatewayConfig,
  type ListenerConfig,
  loadConfigFile,
  parseConfig,
} from './config/load.js';
export { defaultConfig } from './default-config.js';
export { type HttpListener, startHttpListener } from './listeners/http.js';
export { type RunningGateway, runGateway } from './run.js';
