// What promote never shows: values of secret-looking names (the plans, their help, -o json).

/** Names whose values are never shown. */
export const SECRET_NAME = /key|secret|token|password|credential/i;
export const MASK = '****';
