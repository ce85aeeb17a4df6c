/**
 * Reads the packaging of a checkout into a {@link PackagingSet}: the function folders (importing
 * each `handler.ts` and `config.ts`: nothing runs at import time, by the house rules), every YAML
 * document under `knative/`, the files of `config/`, `serverless.yml` and the Dockerfile.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getFunction } from '@google-cloud/functions-framework/testing';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import {
  isRecord,
  type ConfigLoader,
  type FunctionModule,
  type ManifestDoc,
  type PackagingSet,
  type TextFile,
} from './model.js';

export interface RepoPaths {
  /** The checkout (default: the current directory). */
  root?: string;
  /** Default `<root>/functions`. */
  functionsDir?: string;
  /** Default `<root>/knative`. */
  knativeDir?: string;
  /** Default `<root>/config`. */
  configDir?: string;
  /** Import each `handler.ts` (default true; the config checks need only `config.ts`). */
  importHandlers?: boolean;
}

const YAML_FILE = /\.ya?ml$/;

function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

/** The function folders (those with a handler.ts), sorted. */
export async function functionFolders(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'handler.ts')))
    .map((e) => e.name)
    .sort();
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

async function readHandler(dir: string, name: string, problems: string[]): Promise<Record<string, unknown>> {
  try {
    return await importModule(join(dir, name, 'handler.ts'));
  } catch (err) {
    problems.push(`functions/${name}/handler.ts: cannot be imported: ${String(err)}`);
    return {};
  }
}

async function readFunction(
  dir: string,
  name: string,
  problems: string[],
  importHandler: boolean,
): Promise<FunctionModule> {
  const registered = (n: string): boolean => getFunction(n) !== undefined;
  const handlerExports = importHandler ? await readHandler(dir, name, problems) : {};
  const fn: FunctionModule = { name, handlerExports, registered };
  const configPath = join(dir, name, 'config.ts');
  if (!existsSync(configPath)) return fn;
  try {
    const loader = (await importModule(configPath))['loadConfig'];
    if (typeof loader === 'function') fn.loadConfig = loader as ConfigLoader;
  } catch (err) {
    problems.push(`functions/${name}/config.ts: cannot be imported: ${String(err)}`);
  }
  return fn;
}

function familyOf(knativeDir: string, path: string): string {
  const parts = relative(knativeDir, path).split(sep);
  return parts.length > 1 ? parts[0] : '';
}

/** Every mapping document of every YAML file under `dir`; syntax errors go to `problems`. */
export async function readManifests(root: string, dir: string, problems: string[]): Promise<ManifestDoc[]> {
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir, { recursive: true })).filter((f) => YAML_FILE.test(f)).sort();
  const docs: ManifestDoc[] = [];
  for (const rel of files) {
    const path = join(dir, rel);
    const file = shown(root, path);
    parseAllDocuments(await readFile(path, 'utf8')).forEach((doc, i) => {
      if (doc.errors.length > 0) {
        problems.push(...doc.errors.map((e) => `${file}: document ${i + 1}: ${e.message}`));
        return;
      }
      const object: unknown = doc.toJS();
      if (object === null || object === undefined) return;
      if (isRecord(object)) docs.push({ file, family: familyOf(dir, path), index: i + 1, object });
      else problems.push(`${file}: document ${i + 1}: not a mapping`);
    });
  }
  return docs;
}

/** The `*.yaml` files of the config folder (not recursive). */
export async function readConfigFiles(root: string, dir: string): Promise<(TextFile & { name: string })[]> {
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((f) => YAML_FILE.test(f)).sort();
  return Promise.all(
    files.map(async (f) => ({
      file: shown(root, join(dir, f)),
      name: basename(f, extname(f)),
      text: await readFile(join(dir, f), 'utf8'),
    })),
  );
}

async function readServerless(root: string, problems: string[]): Promise<PackagingSet['serverless']> {
  const path = join(root, 'serverless.yml');
  if (!existsSync(path)) return undefined;
  try {
    return { file: 'serverless.yml', doc: parseYaml(await readFile(path, 'utf8')) as unknown };
  } catch (err) {
    problems.push(`serverless.yml: not YAML: ${(err as Error).message}`);
    return { file: 'serverless.yml', doc: {} };
  }
}

/** Reads everything the packaging checks look at. */
export async function readPackaging(paths: RepoPaths = {}): Promise<PackagingSet> {
  const root = resolve(paths.root ?? '.');
  const functionsDir = resolve(root, paths.functionsDir ?? 'functions');
  const configDir = resolve(root, paths.configDir ?? 'config');
  const problems: string[] = [];
  const functions: FunctionModule[] = [];
  for (const name of await functionFolders(functionsDir))
    functions.push(await readFunction(functionsDir, name, problems, paths.importHandlers ?? true));
  const manifests = await readManifests(root, resolve(root, paths.knativeDir ?? 'knative'), problems);
  const dockerPath = join(root, 'Dockerfile');
  const serverless = await readServerless(root, problems);
  return {
    functions,
    manifests,
    readProblems: problems,
    configFiles: await readConfigFiles(root, configDir),
    configDir: shown(root, configDir),
    ...(serverless ? { serverless } : {}),
    ...(existsSync(dockerPath)
      ? { dockerfile: { file: 'Dockerfile', text: await readFile(dockerPath, 'utf8') } }
      : {}),
  };
}
