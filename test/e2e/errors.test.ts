/**
 * The error output kubectl prints against `npm start`, as against a real kube-apiserver 1.32.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configMap, deployItem, deployment, seed, shoot } from './manifests.js';
import { outcome, useLandscape } from './support.js';

const landscape = useLandscape();

async function manifest(name: string, text: string): Promise<string> {
  return landscape().manifest(name, text);
}

function failure(stderr: string): { code: number; stdout: string; stderr: string } {
  return { code: 1, stdout: '', stderr: `${stderr}\n` };
}

describe('unknown resource type', () => {
  it('get nope', async () => {
    expect(outcome(await landscape().kubectl(['get', 'nope']))).toEqual(
      failure('error: the server doesn\'t have a resource type "nope"'),
    );
  });
});

describe('a kind the server does not serve (no CRD)', () => {
  const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 1\n';
  const noMapping = (file: string): string =>
    `error: resource mapping not found for name: "w1" namespace: "" from "${file}": no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first`;

  // Server bug: GET /openapi/v2 answers 404 (kubectl's validation falls back to it for a kind that is
  // not in /openapi/v3), so kubectl fails with "error validating data: the server could not find the
  // requested resource; ... --validate=false" before it can report the missing kind.
  it('apply -f (default validation)', async () => {
    const file = await manifest('widget.yaml', widget);
    expect(outcome(await landscape().kubectl(['apply', '-f', file]))).toEqual(failure(noMapping(file)));
  });

  it('create -f (default validation)', async () => {
    const file = await manifest('widget-create.yaml', widget);
    expect(outcome(await landscape().kubectl(['create', '-f', file]))).toEqual(failure(noMapping(file)));
  });
});

describe('missing namespace', () => {
  it('create -f of a ConfigMap', async () => {
    const file = await manifest('missing-ns-cm.yaml', configMap('c1', { a: 'b' }, { namespace: 'nosuchns' }));
    expect(outcome(await landscape().kubectl(['create', '-f', file]))).toEqual(
      failure(`Error from server (NotFound): error when creating "${file}": namespaces "nosuchns" not found`),
    );
  });

  it('apply -f of a DeployItem', async () => {
    const file = await manifest(
      'missing-ns-di.yaml',
      deployItem('d1').replace('name: d1', 'name: d1\n  namespace: nosuchns'),
    );
    expect(outcome(await landscape().kubectl(['apply', '-f', file]))).toEqual(
      failure(`Error from server (NotFound): error when creating "${file}": namespaces "nosuchns" not found`),
    );
  });

  it('-n nosuchns on create -f', async () => {
    const file = await manifest('missing-ns-flag.yaml', configMap('c2', { a: 'b' }));
    expect(outcome(await landscape().kubectl(['create', '-f', file, '-n', 'nosuchns']))).toEqual(
      failure(`Error from server (NotFound): error when creating "${file}": namespaces "nosuchns" not found`),
    );
  });

  it('get of a list in it finds nothing', async () => {
    expect(outcome(await landscape().kubectl(['get', 'cm', '-n', 'nosuchns']))).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in nosuchns namespace.\n',
    });
  });

  it('get of a named object in it: the object is not found, and kubectl (1.32) then names the missing namespace', async () => {
    const r = await landscape().kubectl(['get', 'cm', 'c1', '-n', 'nosuchns', '-v=6']);
    expect(r.stderr).toMatch(
      /GET https:\/\/\S+\/api\/v1\/namespaces\/nosuchns\/configmaps\/c1 404 Not Found/,
    );
    expect(r.stderr).toMatch(/GET https:\/\/\S+\/api\/v1\/namespaces\/nosuchns 404 Not Found/);
    expect({ code: r.code, stdout: r.stdout, stderr: `${r.stderr.trimEnd().split('\n').pop()}\n` }).toEqual(
      failure('Error from server (NotFound): namespaces "nosuchns" not found'),
    );
  });

  it('get of a named object in an existing namespace: the object is not found', async () => {
    expect(outcome(await landscape().kubectl(['get', 'cm', 'c1', '-n', 'kube-public']))).toEqual(
      failure('Error from server (NotFound): configmaps "c1" not found'),
    );
  });
});

describe('invalid custom resources (422)', () => {
  it('a field of the wrong type', async () => {
    const file = await manifest('bad-type.yaml', deployItem('bad-type', { updateOnChangeOnly: 'yes' }));
    const r = await landscape().kubectl(['apply', '-f', file, '-v=6']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /POST https:\/\/\S+\/deployitems\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 422 Unprocessable Entity/,
    );
    expect(r.stderr.split('\n').filter((l) => !/^[IE]\d{4} /.test(l))).toEqual([
      'The DeployItem "bad-type" is invalid: spec.updateOnChangeOnly: Invalid value: "string": spec.updateOnChangeOnly in body must be of type boolean: "string"',
      '',
    ]);
  });

  it('a value outside the enum', async () => {
    const file = await manifest('bad-enum.yaml', shoot('bad-enum', { region: 'eu-1', purpose: 'fun' }));
    expect(outcome(await landscape().kubectl(['apply', '-f', file]))).toEqual(
      failure(
        'The Shoot "bad-enum" is invalid: spec.purpose: Unsupported value: "fun": supported values: "evaluation", "testing", "development", "production", "infrastructure"',
      ),
    );
  });

  it('a missing required field', async () => {
    const file = await manifest('no-type.yaml', deployItem('no-type', { type: undefined, timeout: '5m' }));
    expect(outcome(await landscape().kubectl(['apply', '-f', file]))).toEqual(
      failure('The DeployItem "no-type" is invalid: spec.type: Required value'),
    );
  });

  it('a missing required field of a cluster-scoped kind', async () => {
    const text = seed('seed-without-nets', { region: 'eu-1' }).replace(/ {2}networks:\n(?: {4}.*\n)+/, '');
    expect(text).not.toContain('networks');
    const file = await manifest('seed-without-nets.yaml', text);
    expect(outcome(await landscape().kubectl(['create', '-f', file]))).toEqual(
      failure('The Seed "seed-without-nets" is invalid: spec.networks: Required value'),
    );
  });

  it('nothing is stored', async () => {
    const r = await landscape().kubectl([
      'get',
      'di',
      'bad-type',
      'no-type',
      '--ignore-not-found',
      '-o',
      'name',
    ]);
    expect(outcome(r)).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('unknown fields with the default validation (Strict)', () => {
  it('in a custom resource', async () => {
    const file = await manifest('unknown-field-di.yaml', deployItem('unknown-field', { foo: 'bar' }));
    expect(outcome(await landscape().kubectl(['apply', '-f', file]))).toEqual(
      failure(
        `Error from server (BadRequest): error when creating "${file}": DeployItem in version "v1alpha1" cannot be handled as a DeployItem: strict decoding error: unknown field "spec.foo"`,
      ),
    );
  });

  it('in a built-in kind', async () => {
    const text = deployment('unknown-field', { image: 'nginx:1.27' }).replace(
      'spec:\n',
      'spec:\n  foo: bar\n',
    );
    const file = await manifest('unknown-field-deploy.yaml', text);
    expect(outcome(await landscape().kubectl(['create', '-f', file]))).toEqual(
      failure(
        `Error from server (BadRequest): error when creating "${file}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"`,
      ),
    );
  });

  it('--validate=false drops the field instead (fieldValidation=Ignore, pruning)', async () => {
    const file = await manifest('unknown-field-di-3.yaml', deployItem('unknown-field-3', { foo: 'bar' }));
    expect(outcome(await landscape().kubectl(['apply', '-f', file, '--validate=false']))).toEqual({
      code: 0,
      stdout: 'deployitem.landscaper.gardener.cloud/unknown-field-3 created\n',
      stderr: '',
    });
    const spec = JSON.parse(
      (await landscape().kubectlOk(['get', 'di', 'unknown-field-3', '-o', 'jsonpath={.spec}'])).stdout,
    );
    expect(spec).toEqual({ type: 'landscaper.gardener.cloud/mock' });
  });
});

describe('conflicts', () => {
  it('create of an existing name: AlreadyExists', async () => {
    const l = landscape();
    const di = await manifest('dup-di.yaml', deployItem('dup'));
    const cm = await manifest('dup-cm.yaml', configMap('dup', { a: 'b' }));
    await l.kubectlOk(['create', '-f', di]);
    await l.kubectlOk(['create', '-f', cm]);
    expect(outcome(await l.kubectl(['create', '-f', di]))).toEqual(
      failure(
        `Error from server (AlreadyExists): error when creating "${di}": deployitems.landscaper.gardener.cloud "dup" already exists`,
      ),
    );
    expect(outcome(await l.kubectl(['create', '-f', cm]))).toEqual(
      failure(
        `Error from server (AlreadyExists): error when creating "${cm}": configmaps "dup" already exists`,
      ),
    );
  });

  it('replace with a stale resourceVersion: Conflict', async () => {
    const l = landscape();
    await l.kubectlOk(['create', '-f', await manifest('stale.yaml', deployItem('stale', { timeout: '5m' }))]);
    const old = (await l.kubectlOk(['get', 'di', 'stale', '-o', 'yaml'])).stdout;
    expect(parse(old).metadata.resourceVersion).toMatch(/^\d+$/);
    await l.kubectlOk(['patch', 'di', 'stale', '--type', 'merge', '-p', '{"spec":{"timeout":"6m"}}']);
    const file = await manifest('stale-edited.yaml', old.replace('timeout: 5m', 'timeout: 7m'));
    expect(outcome(await l.kubectl(['replace', '-f', file]))).toEqual(
      failure(
        `Error from server (Conflict): error when replacing "${file}": Operation cannot be fulfilled on deployitems.landscaper.gardener.cloud "stale": the object has been modified; please apply your changes to the latest version and try again`,
      ),
    );
    expect((await l.kubectlOk(['get', 'di', 'stale', '-o', 'jsonpath={.spec.timeout}'])).stdout).toBe('6m');
  });
});

describe('authentication', () => {
  const LOGGED_OUT =
    /^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)\n$/;

  it('a kubeconfig without the token: Unauthorized', async () => {
    const l = landscape();
    const kubeconfig = parse(await readFile(l.kubeconfig(), 'utf8'));
    expect(kubeconfig.users[0].user.token).toMatch(/\S{16,}/);
    // No token; a user name alone keeps kubectl from prompting for a password on stdin.
    kubeconfig.users[0].user = { username: 'nobody' };
    const path = join(l.stateDir, 'no-token.kubeconfig');
    await writeFile(path, JSON.stringify(kubeconfig));
    const r = await l.kubectl(['get', 'ns'], { kubeconfig: path });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(
      r.stderr
        .split('\n')
        .filter((line) => !/^E\d{4} /.test(line))
        .join('\n'),
    ).toMatch(LOGGED_OUT);
  });

  it('a wrong token: Unauthorized', async () => {
    const r = await landscape().kubectl(['get', 'cm', '--token', 'not-the-token']);
    expect(r.code).toBe(1);
    expect(
      r.stderr
        .split('\n')
        .filter((line) => !/^E\d{4} /.test(line))
        .join('\n'),
    ).toMatch(LOGGED_OUT);
  });
});
