/**
 * Tables of rbac.authorization.k8s.io/v1 as a Kubernetes 1.32 API server sends them: Role and
 * ClusterRole have no printer in printers.go, so their registries use apiserver's default table
 * convertor (Name and an RFC 3339 "Created At"); RoleBinding and ClusterRoleBinding are printed
 * by printRoleBinding / printClusterRoleBinding.
 */
import type { KubeObject } from '../../api/types.js';
import { ageColumn, column, field, nameColumn, type Cell, type KindColumns } from './columns.js';
import { CREATION_TIMESTAMP, RBAC } from './descriptions.js';
import { asArray, asRecord, rfc3339UTC, str } from './format.js';

/** The columns of apiserver's defaultTableConvertor (pkg/registry/rest/table.go). */
export const defaultConvertorColumns: KindColumns = {
  Name: nameColumn,
  'Created At': column('date', CREATION_TIMESTAMP, (o) => rfc3339UTC(o.metadata.creationTimestamp)),
};

interface SubjectNames {
  users: string[];
  groups: string[];
  serviceAccounts: string[];
}

/** rbac.SubjectsStrings: User and Group names, ServiceAccounts as `namespace/name`; other kinds are not shown. */
function subjectNames(o: KubeObject): SubjectNames {
  const names: SubjectNames = { users: [], groups: [], serviceAccounts: [] };
  for (const s of asArray(o.subjects).map(asRecord)) {
    const kind = str(s.kind);
    if (kind === 'ServiceAccount') names.serviceAccounts.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (kind === 'User') names.users.push(str(s.name));
    else if (kind === 'Group') names.groups.push(str(s.name));
  }
  return names;
}

/** The columns of printRoleBinding and printClusterRoleBinding; `binding` words their descriptions. */
function bindingColumns(binding: 'roleBinding' | 'clusterRoleBinding', roleRefDoc: string): KindColumns {
  const subjects =
    (pick: keyof SubjectNames): Cell =>
    (o) =>
      subjectNames(o)[pick].join(', ');
  return {
    Name: nameColumn,
    Role: column(
      'string',
      roleRefDoc,
      (o) => `${str(field(o, 'roleRef', 'kind'))}/${str(field(o, 'roleRef', 'name'))}`,
    ),
    Age: ageColumn,
    Users: column('string', `Users in the ${binding}`, subjects('users')),
    Groups: column('string', `Groups in the ${binding}`, subjects('groups')),
    ServiceAccounts: column('string', `ServiceAccounts in the ${binding}`, subjects('serviceAccounts')),
  };
}

export const roleBindingColumns = bindingColumns('roleBinding', RBAC.roleBindingRoleRef);
export const clusterRoleBindingColumns = bindingColumns('clusterRoleBinding', RBAC.clusterRoleBindingRoleRef);
