import {
  MAX_POD_HOSTNAME,
  podIdentity,
  podName,
  podNameOfHostname,
  type PodIdentity,
  type PodReads,
} from './pod.js';

const IN_POD = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };
const reads = (host: string, ns?: string): PodReads => ({
  hostname: () => host,
  readNamespaceFile: () => ns,
});
const POD = 'deployer-mock-00001-deployment-7f9c-abcde';

describe('podIdentity', () => {
  it.each<[string, Record<string, string>, PodReads, PodIdentity]>([
    [
      'in a Pod: the hostname and the namespace file',
      IN_POD,
      reads(POD, 'landscape-system\n'),
      {
        podName: POD,
        podNamespace: 'landscape-system',
      },
    ],
    [
      'no token mounted: no namespace file, a plain POD_NAMESPACE',
      { ...IN_POD, POD_NAMESPACE: 'ls' },
      reads(POD),
      {
        podName: POD,
        podNamespace: 'ls',
      },
    ],
    ['no token mounted and no POD_NAMESPACE: the name only', IN_POD, reads(POD), { podName: POD }],
    [
      'POD_NAME and POD_NAMESPACE win (the embedded activator)',
      {
        ...IN_POD,
        POD_NAME: 'replica-a',
        POD_NAMESPACE: 'x',
      },
      reads(POD, 'landscape-system'),
      { podName: 'replica-a', podNamespace: 'x' },
    ],
    ['outside a Pod (Cloud Functions): neither, whatever the host says', {}, reads('localhost', 'ns'), {}],
    [
      'blank values count as unset',
      { ...IN_POD, POD_NAME: ' ', POD_NAMESPACE: '' },
      reads(POD, ' '),
      {
        podName: POD,
      },
    ],
    [
      'a hostname of 63 characters may be cut: no Pod name',
      IN_POD,
      reads('a'.repeat(MAX_POD_HOSTNAME), 'ns'),
      {
        podNamespace: 'ns',
      },
    ],
  ])('%s', (_name, env, r, want) => {
    expect(podIdentity(env, r)).toEqual(want);
  });

  it('reads nothing when the environment says who it is', () => {
    const never: PodReads = {
      hostname: () => {
        throw new Error('read');
      },
      readNamespaceFile: () => {
        throw new Error('read');
      },
    };
    expect(podIdentity({ ...IN_POD, POD_NAME: 'p', POD_NAMESPACE: 'n' }, never)).toEqual({
      podName: 'p',
      podNamespace: 'n',
    });
  });

  it('podName and podNameOfHostname', () => {
    expect(podName({ POD_NAME: 'p' })).toBe('p');
    expect(podName(IN_POD, reads('h-1'))).toBe('h-1');
    expect(podNameOfHostname('a'.repeat(MAX_POD_HOSTNAME - 1))).toHaveLength(62);
    expect(podNameOfHostname('')).toBeUndefined();
  });
});
