import { buildEvent } from '../../shared/events/index.js';
import { requeueEvent, targetsToTick } from './decide.js';

describe('targetsToTick', () => {
  it.each([
    [['b'], ['a', 'b'], true, ['a', 'b']],
    [['b'], ['a'], false, ['b']],
    [[], [], true, []],
  ] as const)('%j + %j (discover %s) = %j', (configured, discovered, discover, want) => {
    expect(targetsToTick(configured, discovered, discover)).toEqual(want);
  });
});

describe('requeueEvent', () => {
  const now = new Date('2024-05-01T12:00:00.000Z');
  const item = {
    target: 'deployer-mock',
    kind: 'DeployItem',
    namespace: 'ls',
    name: 'x',
    at: new Date(now.getTime() - 5000),
  };

  it('carries target, namespace, name and kind as extensions', () => {
    const e = buildEvent(requeueEvent(item, { source: '/s', now, id: 'id-1' }));
    expect(e.type).toBe('dev.landscape.requeue');
    expect(e.id).toBe('id-1');
    expect(e.time).toBe(now.toISOString());
    expect(e['target']).toBe('deployer-mock');
    expect(e['namespace']).toBe('ls');
    expect(e['name']).toBe('x');
    expect(e['kind']).toBe('DeployItem');
    expect(e.subject).toBe('DeployItem/ls/x');
    expect(e.data).toMatchObject({ dueAt: '2024-05-01T11:59:55.000Z' });
  });

  it('leaves the namespace out for cluster-scoped objects', () => {
    const e = buildEvent(
      requeueEvent({ ...item, kind: 'Seed', namespace: '' }, { source: '/s', now, id: 'i' }),
    );
    expect(e['namespace']).toBeUndefined();
    expect(e.subject).toBe('Seed//x');
  });
});
