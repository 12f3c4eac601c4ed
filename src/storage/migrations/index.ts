import type { Migration } from '../types.js';
import { zaakMigration } from './001-zaak.js';
import { zaakRecordsMigration } from './002-zaak-records.js';
import { outboxMigration } from './003-outbox.js';
import { zaakCountMigration } from './004-zaak-count.js';
import { zaakRevisionMigration } from './005-zaak-revision.js';
import { zaakIdentificatieMigration } from './006-zaak-identificatie.js';
import { listIndexesMigration } from './007-list-indexes.js';
import { outboxRequestIdMigration } from './008-outbox-request-id.js';
import { accessOrderIndexMigration } from './009-access-order-index.js';
import { zaaktypeOrderIndexMigration } from './010-zaaktype-order-index.js';
import { outboxLeaseMigration } from './011-outbox-lease.js';
import { zaakReservedIdentificatieMigration } from './012-zaak-reserved-identificatie.js';
import { zaaknummerReservationMigration } from './013-zaaknummer-reservation.js';
import { zaaknotitieMigration } from './014-zaaknotitie.js';
import { migrationLedgerMigration } from './015-migration-ledger.js';
import { clientPositionMigration } from './016-client-position.js';
import { zaaktypeLevelIndexMigration } from './017-zaaktype-level-index.js';
import { recordCountMigration } from './018-record-count.js';

/** The core's migrations, in order; plugins add theirs after these. */
export const coreMigrations: readonly Migration[] = [zaakMigration, zaakRecordsMigration, outboxMigration, zaakCountMigration, zaakRevisionMigration, zaakIdentificatieMigration, listIndexesMigration, outboxRequestIdMigration, accessOrderIndexMigration, zaaktypeOrderIndexMigration, outboxLeaseMigration, zaakReservedIdentificatieMigration, zaaknummerReservationMigration, zaaknotitieMigration, migrationLedgerMigration, clientPositionMigration, zaaktypeLevelIndexMigration, recordCountMigration];
