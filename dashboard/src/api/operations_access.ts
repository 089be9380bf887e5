import { operationRoles, type OperationId } from './operations'

export type Role = 'superadmin' | 'operator' | 'readonly'

/** Whether a dashboard role may call an operation, from the x-roles of the gateway's own document. */
export function roleMay(role: Role, operation: OperationId): boolean {
  const roles: readonly string[] | null = operationRoles[operation]
  return roles === null || roles.includes(role)
}
