/**
 * TLS for the embedded clusters: kubectl sends a bearer token only over TLS, so every cluster
 * serves HTTPS with a serving certificate for 127.0.0.1/localhost signed by a landscape CA
 * (ECDSA P-256, made in a few milliseconds; kept in a directory when one is given).
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

export interface Pki {
  caCert: string;
  cert: string;
  key: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64.trimEnd()}\n-----END ${label}-----\n`;
}

export async function createPki(hosts: string[] = ['127.0.0.1', 'localhost', '::1']): Promise<Pki> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 10 * YEAR_MS);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Date.now().toString(16),
    name: 'CN=landscape-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const names = hosts.map((h) =>
    /^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h },
  );
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (Date.now() + 1).toString(16),
    subject: 'CN=kube-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.SubjectAlternativeNameExtension(names),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { caCert: ca.toString('pem'), cert: cert.toString('pem'), key: toPem(pkcs8, 'PRIVATE KEY') };
}

const FILES = { caCert: 'ca.crt', cert: 'apiserver.crt', key: 'apiserver.key' } as const;

/** Loads the PKI kept in `dir`, or makes one and keeps it there. */
export async function loadOrCreatePki(dir: string): Promise<Pki> {
  try {
    const [caCert, cert, key] = await Promise.all(
      [FILES.caCert, FILES.cert, FILES.key].map((f) => readFile(join(dir, f), 'utf8')),
    );
    return { caCert, cert, key };
  } catch {
    const pki = await createPki();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await Promise.all(
      (Object.keys(FILES) as (keyof Pki)[]).map((k) =>
        writeFile(join(dir, FILES[k]), pki[k], { mode: 0o600 }),
      ),
    );
    return pki;
  }
}
