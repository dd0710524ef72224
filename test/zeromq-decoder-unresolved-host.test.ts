// A remote decoder given a host name that does not resolve (`decoder --connect tcp://daemon-hots:5555`, a typo):
// libzmq retries the name without a word, and after 10 s the decoder said "no analyzer …; check that a daemon runs
// there … and that the port is open", sending the user to the daemon and the firewall. It now says the name does not
// resolve; a name that does (localhost) gets the usual advice.
import { expect, onTestFinished, test } from 'vitest';
import { runZeromqDecoder } from '../dist/src/decode/zeromq-decoder.js';

function decoder(connect: string): string[] {
  const status: string[] = [];
  const ac = new AbortController();
  const running = runZeromqDecoder({ connect, decoder: 'jpeg-js', signal: ac.signal, noAnalyzerMs: 300, onStatus: (m) => status.push(m) });
  onTestFinished(async () => {
    ac.abort();
    await running;
  });
  return status;
}

async function firstStatus(status: string[]): Promise<string> {
  const end = Date.now() + 15_000;
  while (status.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return status[0] ?? 'nothing said';
}

test('a decoder whose --connect host name does not resolve says so', async () => {
  // .invalid never resolves (RFC 2606).
  const said = await firstStatus(decoder('tcp://daemon-host.invalid:5555'));
  expect(said).toMatch(
    /^no analyzer at tcp:\/\/daemon-host\.invalid:5555 after 0\.3 s: the host name daemon-host\.invalid (does not resolve \((ENOTFOUND|EAI_NONAME|ENODATA)\)|could not be resolved \(EAI_AGAIN: DNS did not answer\)); check the daemon's host name \(as this machine resolves it\), or give its address; still trying$/,
  );
});

test('a decoder whose --connect host name resolves gets the usual advice', async () => {
  const said = await firstStatus(decoder('tcp://localhost:9'));
  expect(said).toBe('no analyzer at tcp://localhost:9 after 0.3 s; check that a daemon runs there with "channel": "zeromq" and that endpoint (its log names it), and that the port is open');
});
