export type PluginErrorCode =
  | 'PLUGIN_INVALID'
  | 'PLUGIN_INVALID_OPTIONS'
  | 'PLUGIN_DUPLICATE'
  | 'PLUGIN_MISSING_DEPENDENCY'
  | 'PLUGIN_INCOMPATIBLE'
  | 'PLUGIN_UNKNOWN_HOOK'
  /** A known hook of the wrong kind (`request: 42`), or a setup that returned no object of hooks. */
  | 'PLUGIN_INVALID_HOOK'
  | 'PLUGIN_SETUP_FAILED'
  /** `defineErrorReasons` refused a reason: taken by core or with another code, or a code it may not use. */
  | 'PLUGIN_INVALID_ERROR_REASON';

/** A plugin that cannot be loaded; `code` is stable, the message says what to change. */
export class PluginError extends Error {
  override readonly name = 'PluginError';
  readonly code: PluginErrorCode;
  readonly plugin: string;

  constructor(code: PluginErrorCode, plugin: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.plugin = plugin;
  }
}
