import type { HookInput, HookResult, HookType, ReconcileHook, ReconcileHooks } from './hooks.js';
import {
  aggregateHookResults,
  HOOK_TYPES,
  HookError,
  isHookType,
  mergeHookResults,
  registerHook,
  registerHookSetup,
  responsibleAfterHooks,
  runHooks,
  shouldReconcileAfterHooks,
} from './hooks.js';

const r = (abortReconcile: boolean, requeueAfterMs = 0, requeue = false): HookResult => ({
  abortReconcile,
  requeue,
  requeueAfterMs,
});
const INPUT: HookInput = { now: new Date('2024-05-01T12:00:00Z') };

describe('HOOK_TYPES', () => {
  it.each([
    ...HOOK_TYPES.map((t) => [t, true] as const),
    ['Begin', false] as const,
    [undefined, false] as const,
  ])('isHookType(%j) = %s', (value, expected) => {
    expect(isHookType(value)).toBe(expected);
  });
});

describe('aggregateHookResults (seed 002)', () => {
  it.each<[string, HookType, (HookResult | undefined)[], HookResult | undefined]>([
    ['no results', 'Start', [], undefined],
    ['all nil', 'End', [undefined, undefined], undefined],
    [
      'exactly one: a copy (even requeue + requeueAfter)',
      'End',
      [undefined, r(true, 500, true)],
      r(true, 500, true),
    ],
    ['abort ORed', 'BeforeReconcile', [r(false), r(true)], r(true)],
    ['abort ORed, none', 'AfterResponsibilityCheck', [r(false), r(false)], r(false)],
    ['abort ANDed for ShouldReconcile', 'ShouldReconcile', [r(false), r(true)], r(false)],
    ['abort ANDed for ShouldReconcile, all true', 'ShouldReconcile', [r(true), r(true)], r(true)],
    [
      'abort ANDed for DuringResponsibilityCheck',
      'DuringResponsibilityCheck',
      [r(true), undefined, r(false)],
      r(false),
    ],
    ['nil results are ignored in the AND', 'ShouldReconcile', [r(true), undefined, r(true)], r(true)],
    ['smallest positive requeueAfter', 'End', [r(false, 3000), r(false, 0), r(false, 1000)], r(false, 1000)],
    ['no positive requeueAfter', 'End', [r(false, 0), r(false, 0)], r(false, 0)],
    ['requeue ORed and forces requeueAfter 0', 'End', [r(false, 3000), r(false, 0, true)], r(false, 0, true)],
    ['requeue first, then a delay', 'BeforeDelete', [r(false, 0, true), r(false, 2000)], r(false, 0, true)],
  ])('%s', (_name, type, results, expected) => {
    expect(aggregateHookResults(type, results)).toEqual(expected);
  });

  it('returns a copy, not the hook’s own object', () => {
    const only = r(true, 5);
    const out = aggregateHookResults('End', [only]);
    expect(out).not.toBe(only);
  });
});

describe('mergeHookResults (running result, abort ORed)', () => {
  it.each<[string, HookResult | undefined, HookResult | undefined, HookResult | undefined]>([
    ['both nil', undefined, undefined, undefined],
    ['current only', r(false, 10), undefined, r(false, 10)],
    ['next only', undefined, r(true), r(true)],
    ['OR even after ShouldReconcile', r(true, 10), r(false, 20), r(true, 10)],
  ])('%s', (_name, current, next, expected) => {
    expect(mergeHookResults(current, next)).toEqual(expected);
  });
});

describe('responsibleAfterHooks / shouldReconcileAfterHooks', () => {
  it.each<[boolean, HookResult | undefined, boolean]>([
    [true, undefined, true],
    [false, undefined, false],
    [false, r(false), true],
    [true, r(true), false],
  ])('responsible %s with %j → %s', (responsible, result, expected) => {
    expect(responsibleAfterHooks(responsible, result)).toBe(expected);
  });

  it.each<[boolean, HookResult | undefined, boolean]>([
    [true, undefined, true],
    [true, r(true), true],
    [false, undefined, false],
    [false, r(true), false],
    [false, r(false), true],
  ])('default %s with %j → %s', (byDefault, result, expected) => {
    expect(shouldReconcileAfterHooks(byDefault, result)).toBe(expected);
  });
});

describe('registry', () => {
  const a: ReconcileHook = () => r(false);
  const b: ReconcileHook = () => r(true);

  it.each<[string, () => ReconcileHooks, ReconcileHooks]>([
    ['no types: unchanged', () => registerHook({}, a), {}],
    ['one hook, two types', () => registerHook({}, a, 'Start', 'End'), { Start: [a], End: [a] }],
    ['appends in order', () => registerHook(registerHook({}, a, 'End'), b, 'End'), { End: [a, b] }],
    [
      'hook setup',
      () => registerHookSetup({ End: [a] }, { hook: b, types: ['End', 'ShouldReconcile'] }),
      { End: [a, b], ShouldReconcile: [b] },
    ],
  ])('%s', (_name, build, expected) => {
    expect(build()).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const hooks: ReconcileHooks = { End: [a] };
    const next = registerHook(hooks, b, 'End');
    expect(hooks).toEqual({ End: [a] });
    expect(next).toEqual({ End: [a, b] });
  });
});

describe('runHooks', () => {
  it.each<[string, ReconcileHooks, HookType, HookResult | undefined]>([
    ['no hooks of the type', { End: [() => r(true)] }, 'Start', undefined],
    ['sync hook', { End: [() => r(true, 10)] }, 'End', r(true, 10)],
    [
      'async hooks aggregated (AND for ShouldReconcile)',
      {
        ShouldReconcile: [
          () => Promise.resolve(r(true, 50)),
          async () => r(false, await Promise.resolve(20)),
        ],
      },
      'ShouldReconcile',
      r(false, 20),
    ],
    ['nil hook', { End: [() => undefined] }, 'End', undefined],
  ])('%s', async (_name, hooks, type, expected) => {
    await expect(runHooks(hooks, type, INPUT)).resolves.toEqual(expected);
  });

  it('calls hooks in order with the input and the type, one after the other', async () => {
    const calls: string[] = [];
    const hook =
      (name: string, delayMs: number): ReconcileHook =>
      async (input, type) => {
        calls.push(`${name}:start:${type}:${input.now.toISOString()}`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        calls.push(`${name}:end`);
        return undefined;
      };
    await runHooks({ BeforeReconcile: [hook('a', 5), hook('b', 0)] }, 'BeforeReconcile', INPUT);
    expect(calls).toEqual([
      'a:start:BeforeReconcile:2024-05-01T12:00:00.000Z',
      'a:end',
      'b:start:BeforeReconcile:2024-05-01T12:00:00.000Z',
      'b:end',
    ]);
  });

  it.each<[string, ReconcileHook]>([
    [
      'a thrown error',
      () => {
        throw new Error('boom');
      },
    ],
    ['a rejected promise', () => Promise.reject(new Error('boom'))],
  ])('propagates %s as HookError and stops', async (_name, failing) => {
    let afterCalls = 0;
    const after: ReconcileHook = () => {
      afterCalls += 1;
      return r(false);
    };
    const run = runHooks({ BeforeDelete: [() => r(false), failing, after] }, 'BeforeDelete', INPUT);
    await expect(run).rejects.toThrow(HookError);
    await expect(run).rejects.toMatchObject({
      type: 'BeforeDelete',
      index: 1,
      message: 'error executing reconciliation extension hook 1 of type "BeforeDelete": boom',
    });
    expect(afterCalls).toBe(0);
  });

  it('refuses an unknown hook type', async () => {
    await expect(runHooks({}, 'Later' as HookType, INPUT)).rejects.toThrow('unknown hook type "Later"');
  });
});
