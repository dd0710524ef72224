// What a frame that is not a JPEG was, said in words: a camera that serves its login page or a JSON error as
// image/jpeg, a PNG snapshot URL, a folder holding a PNG. Before, every such frame was "starts with 3c 21 44 4f".
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inspectJpeg } from '../dist/src/decode/jpeg-header.js';

function messageOf(bytes: Uint8Array): string {
  try {
    inspectJpeg(bytes, 'camera c1: frame');
  } catch (err) {
    expect((err as { code?: string }).code).toBe('TC_ERR_DECODE_NOT_JPEG');
    return (err as Error).message;
  }
  throw new Error('accepted as a JPEG');
}

const HINT = 'check that the camera URL serves image/jpeg snapshots';
// An HTML page labelled image/jpeg is a login page as often as one labelled text/html: told where the login goes.
const LOGIN_HINT = `${HINT}, and give its user and password (http://user:password@host/path) if it asks for a login`;

describe('a frame that is not a JPEG', () => {
  it('an HTML login page, after a byte order mark and line ends, is shown by its first characters on one line', () => {
    const page = Buffer.from('\ufeff\r\n<!DOCTYPE html>\r\n<html>\n  <head><title>Camera login</title></head><body><form action="/login"></form></body></html>');
    expect(messageOf(page)).toBe(`camera c1: frame: not a JPEG but an HTML page (starts with "<!DOCTYPE html> <html> <head><title>Camera login</title></he…"); ${LOGIN_HINT}`);
  });

  it('a login page with accented letters is text; one with a bidi override or a C1 control is not echoed', () => {
    const page = Buffer.from('<!DOCTYPE html><html><head><meta charset="utf-8"><title>Caméra – connexion</title></head></html>');
    expect(messageOf(page)).toBe(`camera c1: frame: not a JPEG but an HTML page (starts with "<!DOCTYPE html><html><head><meta charset="utf-8"><title>Camé…"); ${LOGIN_HINT}`);
    // A character cut by the 256 bytes read is dropped, not a reason to call the page binary.
    const long = Buffer.from(`<html>${'é'.repeat(200)}</html>`);
    expect(messageOf(long)).toBe(`camera c1: frame: not a JPEG but an HTML page (starts with "<html>${'é'.repeat(54)}…"); ${LOGIN_HINT}`);
    // U+202E turns the rest of a terminal line around; U+009B is a C1 terminal escape; invalid UTF-8 is binary.
    expect(messageOf(Buffer.from('login \u202efdp.exe'))).toBe(`camera c1: frame: not a JPEG (starts with 6c 6f 67 69, expected ff d8); ${HINT}`);
    expect(messageOf(Buffer.from('ok\u009b2J'))).toBe(`camera c1: frame: not a JPEG (starts with 6f 6b c2 9b, expected ff d8); ${HINT}`);
    expect(messageOf(Buffer.from([0x61, 0x62, 0xc3, 0x28]))).toBe(`camera c1: frame: not a JPEG (starts with 61 62 c3 28, expected ff d8); ${HINT}`);
  });

  it('an HTML page names the camera URL with user:password, or the query password it did not take, when the URL is known', () => {
    const page = Buffer.from('  \n<!doctype html><html><body>Please log in</body></html>');
    const at = (url: string): string => {
      try {
        inspectJpeg(page, 'camera c1: frame', url);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('accepted as a JPEG');
    };
    expect(at('http://10.0.0.5:8080/cgi-bin/snapshot.cgi?chn=1')).toBe(
      `camera c1: frame: not a JPEG but an HTML page (starts with "<!doctype html><html><body>Please log in</body></html>"); ${HINT}, and give its user and password (http://user:password@10.0.0.5:8080/path) if it asks for a login`,
    );
    expect(at('http://10.0.0.5/snap.cgi?usr=admin&pwd=secret')).toBe(
      `camera c1: frame: not a JPEG but an HTML page (starts with "<!doctype html><html><body>Please log in</body></html>"); ${HINT}; if this is its login page, it did not take the user and password in the URL's query (pwd=): check them, or give them as http://user:password@10.0.0.5/path`,
    );
    // An XML or JSON answer is no login page: the plain hint.
    expect(messageOf(Buffer.from('<?xml version="1.0"?><error/>'))).toMatch(new RegExp(`; ${HINT}$`));
  });

  it('a token or password in the echoed text is shown as ***', () => {
    expect(messageOf(Buffer.from('{"error":"expired","access_token":"eyJhbGciOiJIUzI1NiJ9.e30.abc"}'))).toBe(
      `camera c1: frame: not a JPEG but a JSON document (starts with "{"error":"expired","access_token":"***"}"); ${HINT}`,
    );
    expect(messageOf(Buffer.from('sid=8c1f2a; password: hunter2\nkeyboard_key=k'))).toBe(
      `camera c1: frame: not a JPEG but text (starts with "sid=***; password: *** keyboard_key=k"); ${HINT}`,
    );
  });

  it('a quoted secret is hidden whole, past an escaped quote, a blank or a comma', () => {
    // Before: `"token":"***"cd-s3cr3t"` and `'*** and-more'`: the value was cut at its escaped quote or first blank.
    expect(messageOf(Buffer.from('{"error":"expired","token":"ab\\"cd-s3cr3t","n":1}'))).toBe(
      `camera c1: frame: not a JPEG but a JSON document (starts with "{"error":"expired","token":"***","n":1}"); ${HINT}`,
    );
    expect(messageOf(Buffer.from("password='pass word, and-more' ok"))).toBe(`camera c1: frame: not a JPEG but text (starts with "password='***' ok"); ${HINT}`);
    // An empty value hides nothing, and is shown as it is.
    expect(messageOf(Buffer.from('{"token":"","error":"no token"}'))).toContain('(starts with "{"token":"","error":"no token"}")');
  });

  it('a token after an HTTP auth scheme is hidden with it (Authorization: Bearer …)', () => {
    // Before: "Authorization: *** eyJhbGciOi.s3cr3t": the scheme was hidden and the token after it shown.
    expect(messageOf(Buffer.from('HTTP/1.0 401\r\nAuthorization: Bearer eyJhbGciOi.s3cr3t\r\nX: 1'))).toBe(
      `camera c1: frame: not a JPEG but text (starts with "HTTP/1.0 401 Authorization: *** X: 1"); ${HINT}`,
    );
    expect(messageOf(Buffer.from('authorization=Basic YWRtaW46cHc= next'))).toBe(`camera c1: frame: not a JPEG but text (starts with "authorization=*** next"); ${HINT}`);
  });

  it('a JSON error and an XML answer', () => {
    expect(messageOf(Buffer.from('{"error":"unauthorized","code":401}'))).toBe(
      `camera c1: frame: not a JPEG but a JSON document (starts with "{"error":"unauthorized","code":401}"); ${HINT}`,
    );
    expect(messageOf(Buffer.from('<?xml version="1.0"?><ResponseStatus><statusCode>4</statusCode></ResponseStatus>'))).toMatch(
      /^camera c1: frame: not a JPEG but an HTML or XML document \(starts with "<\?xml version="1\.0"\?><ResponseStatus>/,
    );
  });

  it('other image formats are named', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), deflateSync(Buffer.alloc(64))]);
    expect(messageOf(png)).toBe(`camera c1: frame: not a JPEG but a PNG image (starts with 89 50 4e 47); ${HINT}`);
    expect(messageOf(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toMatch(/not a JPEG but a GIF image \(starts with 47 49 46 38\)/);
    expect(messageOf(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'))).toMatch(/not a JPEG but a WebP image/);
    expect(messageOf(Buffer.from('II*\x00\x08\x00\x00\x00', 'latin1'))).toMatch(/not a JPEG but a TIFF image \(starts with 49 49 2a 00\)/);
    expect(messageOf(Buffer.from('MM\x00*\x00\x00\x00\x08', 'latin1'))).toMatch(/not a JPEG but a TIFF image \(starts with 4d 4d 00 2a\)/);
    // Text that starts like one is text.
    expect(messageOf(Buffer.from('II** maintenance **'))).toMatch(/not a JPEG but text \(starts with "II\*\* maintenance \*\*"\)/);
  });

  it('binary that is none of these, and nothing at all, are shown in hex as before', () => {
    expect(messageOf(Uint8Array.of(0x00, 0x01, 0xfe, 0x7f, 0x80))).toBe(`camera c1: frame: not a JPEG (starts with 00 01 fe 7f, expected ff d8); ${HINT}`);
    expect(messageOf(new Uint8Array(0))).toBe(`camera c1: frame: not a JPEG (starts with nothing, expected ff d8); ${HINT}`);
    // Text with a control character (a terminal escape) is not echoed.
    expect(messageOf(Buffer.from('abc\x1b[2Jdef'))).toBe(`camera c1: frame: not a JPEG (starts with 61 62 63 1b, expected ff d8); ${HINT}`);
    // Blanks and line ends only: said so, not quoted as "".
    expect(messageOf(Buffer.from('\r\n \r\n'))).toBe(`camera c1: frame: not a JPEG but blank text, spaces and line ends only (starts with 0d 0a 20 0d); ${HINT}`);
    // "BM" followed by text is text, not a BMP.
    expect(messageOf(Buffer.from('BMW 320d parked'))).toMatch(/not a JPEG but text \(starts with "BMW 320d parked"\)/);
  });
});
