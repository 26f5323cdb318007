/** The version of @switchyard/core (checked against plugins' `core` ranges). */
export const CORE_VERSION = '0.1.0';
