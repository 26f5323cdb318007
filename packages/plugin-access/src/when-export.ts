// `@switchyard/plugin-access/when`: the CEL conditions of access rules, for other plugins' rules (the
// approve plugin's `when`), so every `when` in a config reads and fails the same way.
export {
  compileWhen,
  MAX_WHEN_LENGTH,
  WHEN_VARIABLES,
  type When,
  type WhenArguments,
  type WhenInput,
  type WhenVerdict,
} from './when.js';
export { whenOption } from './when-option.js';
