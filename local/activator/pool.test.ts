import { podName } from './pool.js';

describe('podName', () => {
  it.each<[string, string, (n: number) => string, string]>([
    [
      'fixed characters',
      'requeue-tick-00001',
      (n) => 'x'.repeat(n),
      'requeue-tick-00001-deployment-xxxxxxxxxx-xxxxx',
    ],
    [
      'the 10 first, then the 5',
      'fn-00001',
      (n) => (n === 10 ? 'bcdfghjklm' : 'npqrs'),
      'fn-00001-deployment-bcdfghjklm-npqrs',
    ],
  ])('%s', (_, revision, rand, expected) => {
    expect(podName(revision, rand)).toBe(expected);
  });

  it('asks the injected rand for 10 then 5 characters', () => {
    const asked: number[] = [];
    podName('fn-00001', (n) => {
      asked.push(n);
      return 'a'.repeat(n);
    });
    expect(asked).toEqual([10, 5]);
  });

  it('by default: Kubernetes’ suffix alphabet (no vowels, no 0/1/3)', () => {
    const names = Array.from({ length: 50 }, () => podName('fn-00001'));
    for (const name of names)
      expect(name).toMatch(
        /^fn-00001-deployment-[bcdfghjklmnpqrstvwxz2456789]{10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
      );
    expect(new Set(names).size).toBe(names.length);
  });
});
