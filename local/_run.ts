import { writeFileSync } from 'node:fs';
import { startApiServer } from '/work/main/local/apiserver/index.js';
const srv = await startApiServer({ clusters: [{ name: 'main', port: 17443 }, { name: 'shoot1' }] });
writeFileSync('/tmp/kc', srv.cluster().kubeconfigYaml());
console.log('up', srv.cluster().url);
