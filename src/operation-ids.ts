/**
 * The operations the core serves, per resource, with each resource's actions as the Zaken API
 * contract lists them. The record resources serve exactly the actions given here (`headers` documents
 * HEAD beside a retrieve: no operation of its own), and `OperationId` is derived from this table, so
 * the ids plugins filter their hooks on cannot drift from the operations served. It imports nothing:
 * the plugin types, a leaf, build on it.
 */
export const CORE_OPERATIONS = {
  zaak: ['list', 'create', '_zoek', 'retrieve', 'update', 'partial_update', 'destroy'],
  klantcontact: ['list', 'create', 'retrieve'],
  resultaat: ['list', 'create', 'retrieve', 'headers', 'update', 'partial_update', 'destroy'],
  rol: ['list', 'create', 'retrieve', 'headers', 'destroy'],
  status: ['list', 'create', 'retrieve', 'headers'],
  zaakcontactmoment: ['list', 'create', 'retrieve', 'destroy'],
  zaakinformatieobject: ['list', 'create', 'retrieve', 'headers', 'update', 'partial_update', 'destroy'],
  zaakobject: ['list', 'create', 'retrieve', 'headers', 'update', 'partial_update', 'destroy'],
  zaakverzoek: ['list', 'create', 'retrieve', 'destroy'],
  zaakbesluit: ['list', 'create', 'retrieve', 'destroy'],
  zaakeigenschap: ['list', 'create', 'retrieve', 'headers', 'update', 'partial_update', 'destroy'],
  audittrail: ['list', 'retrieve'],
  openapi: ['json', 'yaml'],
  api: ['root'],
} as const;

type CoreOperations = typeof CORE_OPERATIONS;

/** The id of an operation of the core, such as `zaak_retrieve`, `status_create` or `zaak__zoek`. */
export type OperationId = { [R in keyof CoreOperations]: `${R}_${Exclude<CoreOperations[R][number], 'headers'>}` }[keyof CoreOperations];

/** Every operation id of the core, in the order of `CORE_OPERATIONS`. */
export const OPERATION_IDS: readonly OperationId[] = Object.freeze(
  Object.entries(CORE_OPERATIONS).flatMap(([resource, actions]) =>
    (actions as readonly string[]).filter((action) => action !== 'headers').map((action) => `${resource}_${action}` as OperationId),
  ),
);
