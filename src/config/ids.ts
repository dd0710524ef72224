// The one rule for camera and line ids, shared by the configuration, the store and the count queries.

/** 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
