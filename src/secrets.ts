// Names under which cameras and their web pages carry a password, key or session, and the hiding of their values in
// messages and logs (a camera URL's query, the start of a text answer echoed in a message).

/** Names that carry a camera's password itself (Foscam `?usr=admin&pwd=…`); SECRET_NAMES begins with them. */
export const PASSWORD_NAMES = 'pass|password|passwd|pwd|pw|psw|loginpas|loginpass';

/**
 * Reolink `password=`, Foscam `pwd=`, Foscam clones `loginpas=`, others `auth=`, `token=`, `key=`, `sid=`, signed URLs
 * `X-Amz-Signature=`; the same words name such values in a JSON error (`{"token":"…"}`).
 */
const SECRET_NAMES =
  `${PASSWORD_NAMES}|token|access_token|auth|auth_key|authorization|key|apikey|api_key|secret|sig|signature|x-amz-signature|x-amz-security-token|sid|session|sessionid`;

const SECRET_PARAM = new RegExp(`([?&;](?:${SECRET_NAMES})=)[^&#;]*`, 'gi');

/** `url` with the values of its query parameters named in SECRET_NAMES shown as ***. */
export function hideQuerySecrets(url: string): string {
  return url.replace(SECRET_PARAM, '$1***');
}

// A name standing alone (not the end of "keyboard_key"), quoted or not, then ":" or "=", then its value: a quoted one
// whole, up to its closing quote past any escaped one (`"token": "ab\"cd"`, `password='a b'`), or to the end of the text
// where the text was cut before it closes; an unquoted one up to the next quote, separator or blank (`sid=abc`), with
// the credentials after an HTTP auth scheme (`Authorization: Bearer eyJ…`: the scheme, then the token).
const SECRET_FIELD = new RegExp(
  `((?<![\\w-])["']?(?:${SECRET_NAMES})["']?\\s*[:=]\\s*)(?:"((?:[^"\\\\]|\\\\[\\s\\S]?)*)("?)|'((?:[^'\\\\]|\\\\[\\s\\S]?)*)('?)|(?:(?:bearer|basic|digest)\\s+)?[^"'&,;\\s}<]+)`,
  'gi',
);

/** Text echoed in a message (the start of a JSON error or a page a camera sent): values of secret-named fields as ***. */
export function hideTextSecrets(text: string): string {
  return text.replace(SECRET_FIELD, (match: string, name: string, dq?: string, dqEnd?: string, sq?: string, sqEnd?: string) => {
    // An empty quoted value ("") hides nothing: left as it is.
    if (dq !== undefined) return dq === '' ? match : `${name}"***${dqEnd ?? ''}`;
    if (sq !== undefined) return sq === '' ? match : `${name}'***${sqEnd ?? ''}`;
    return `${name}***`;
  });
}
