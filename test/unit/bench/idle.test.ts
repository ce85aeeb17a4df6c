/** The idle bench names the largest replica by the function it serves. */
import { replicaName } from '../../../bench/idle.js';

describe('replicaName', () => {
  it.each([
    ['the process title', 'requeue-tick', 'requeue-tick'],
    [
      'the bundle folder before the title is set',
      'node --require /r/.local/bundles/probe-tick-0123abcd/preload.cjs /r/.local/bundles/probe-tick-0123abcd/server.cjs',
      'probe-tick-0123abcd',
    ],
    ['anything else: its first word', '/usr/bin/node x.js', '/usr/bin/node'],
  ])('%s', (_name, cmdline, want) => {
    expect(replicaName(cmdline)).toBe(want);
  });
});
