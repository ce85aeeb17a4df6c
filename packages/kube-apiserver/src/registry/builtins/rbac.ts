/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding
 * (Kubernetes 1.32). ClusterRole.aggregationRule is stored and validated, but aggregation itself
 * (the controller filling an aggregated role's rules) is not performed.
 *
 * Role and ClusterRole are served with the API server's default table convertor (NAME, CREATED
 * AT as RFC 3339); the Role column of the bindings and their wide Users/Groups/ServiceAccounts
 * columns are computed (see the `computed:` descriptions). What the registry strategies add
 * (defaults, rule and subject validation, immutable roleRef) is in ../rbac/validation.ts.
 */
import type { JSONSchemaProps, PrinterColumn, ResourceDef } from '../../api/types.js';
import { ageColumn, computedColumn, fieldColumn } from './columns.js';
import { atomicList, atomicObj, kindProps, labelSelector, obj, str, stringList } from './schema.js';

const GROUP = 'rbac.authorization.k8s.io';

function policyRule(): JSONSchemaProps {
  return obj(
    {
      apiGroups: stringList(),
      nonResourceURLs: stringList(),
      resourceNames: stringList(),
      resources: stringList(),
      verbs: stringList(),
    },
    ['verbs'],
  );
}

function subject(): JSONSchemaProps {
  return atomicObj(
    {
      apiGroup: str(
        'Defaults to "" for ServiceAccount subjects and to "rbac.authorization.k8s.io" for User and Group.',
      ),
      kind: str('ServiceAccount, User or Group.'),
      name: str(),
      namespace: str("Of a ServiceAccount; defaults to the RoleBinding's namespace."),
    },
    ['kind', 'name'],
  );
}

function roleRef(): JSONSchemaProps {
  return atomicObj(
    {
      apiGroup: { type: 'string', default: GROUP },
      kind: str('Role or ClusterRole.'),
      name: str(),
    },
    ['apiGroup', 'kind', 'name'],
  );
}

function def(kind: string, plural: string, namespaced: boolean, schema: JSONSchemaProps): ResourceDef {
  return {
    group: GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    namespaced,
    schema,
    subresources: {},
    printerColumns: [],
    builtin: true,
  };
}

/** The default table convertor's second column (the cell is the RFC 3339 creationTimestamp, not an age). */
function createdAtColumns(): PrinterColumn[] {
  return [fieldColumn('Created At', '.metadata.creationTimestamp')];
}

function bindingColumns(): PrinterColumn[] {
  return [
    computedColumn('Role', '.roleRef.name', 'roleRef.kind + "/" + roleRef.name'),
    ageColumn(),
    computedColumn('Users', '.subjects[*].name', 'names of the User subjects joined with ", "', 1),
    computedColumn('Groups', '.subjects[*].name', 'names of the Group subjects joined with ", "', 1),
    computedColumn(
      'ServiceAccounts',
      '.subjects[*].name',
      '"<namespace>/<name>" of the ServiceAccount subjects joined with ", "',
      1,
    ),
  ];
}

export function roleDef(): ResourceDef {
  const d = def('Role', 'roles', true, obj(kindProps({ rules: atomicList(policyRule()) })));
  d.printerColumns = createdAtColumns();
  return d;
}

export function clusterRoleDef(): ResourceDef {
  const aggregationRule = obj({ clusterRoleSelectors: atomicList(labelSelector()) });
  const d = def(
    'ClusterRole',
    'clusterroles',
    false,
    obj(kindProps({ aggregationRule, rules: atomicList(policyRule()) })),
  );
  d.printerColumns = createdAtColumns();
  return d;
}

function bindingSchema(): JSONSchemaProps {
  return obj(kindProps({ roleRef: roleRef(), subjects: atomicList(subject()) }), ['roleRef']);
}

export function roleBindingDef(): ResourceDef {
  const d = def('RoleBinding', 'rolebindings', true, bindingSchema());
  d.printerColumns = bindingColumns();
  return d;
}

export function clusterRoleBindingDef(): ResourceDef {
  const d = def('ClusterRoleBinding', 'clusterrolebindings', false, bindingSchema());
  d.printerColumns = bindingColumns();
  return d;
}

/** The four RBAC kinds, in the order a 1.32 server lists them in discovery. */
export function rbacDefs(): ResourceDef[] {
  return [clusterRoleBindingDef(), clusterRoleDef(), roleBindingDef(), roleDef()];
}
