import type { Knex } from 'knex';

/** The most identificaties one reservation takes. */
const MAX_BLOCK = 64;
/** A block is sized to last about this long at the rate identificaties went before it. */
const BLOCK_SPAN_MS = 1000;

/**
 * Generated identificaties (`ZAAK-2026-0000000042`) reserved ahead of the zaken that get them
 * (`core/012_zaak_reserved_identificatie`): a create that knows its identificatie knows its whole row
 * and goes to the database as one round trip. A block is sized to about a second's worth at the rate
 * they were taken (one when creates are rare, so one reservation per create as before, up to 64 under
 * load) and expires within 10 seconds. What a block still holds when it expires or the instance stops
 * is a gap in the numbers, as a rolled-back insert always left one. Zaaknummers that clients reserve
 * for zaken of their own (`zaaknummer_reserveren`) come from the same sequence, so a block never holds one.
 *
 * A client may choose a reserved identificatie for a zaak of its own. Through this instance, the block
 * holding it is dropped (`taken`); through another one within those seconds (or through this one,
 * for the very number a concurrent create has just taken), the create that meets it answers 409 and
 * stores nothing (`zaak_created_id`), and its retry gets another.
 */
export class IdentificatieReserve {
  private block: string[] = [];
  private next = 0;
  private expires = 0;
  private size = 0;
  private reservedAt = 0;
  private reserving?: Promise<void>;

  /**
   * An identificatie for a zaak about to be inserted in `tx`. A reservation runs in the transaction
   * of the create that needs it (never on another connection, which the pool might not have free
   * while creates hold them all); creates that need one meanwhile wait for it.
   */
  async take(tx: Knex.Transaction): Promise<string> {
    while (this.next >= this.block.length || Date.now() >= this.expires) {
      if (this.reserving) {
        // Another create's reservation: if its transaction failed, this one reserves its own.
        await this.reserving.catch(() => undefined);
        continue;
      }
      this.reserving = this.reserve(tx).finally(() => (this.reserving = undefined));
      await this.reserving;
      // The create that reserved takes the first, however short the block is valid (at the end of a
      // year, less than the round trip): it was reserved for it just now.
      if (this.next < this.block.length) break;
    }
    return this.block[this.next++];
  }

  /** A client chose `identificatie` for its zaak: a block holding it is given up. */
  taken(identificatie: string): void {
    if (this.block.indexOf(identificatie, this.next) >= 0) this.block = [];
  }

  private async reserve(tx: Knex.Transaction): Promise<void> {
    const now = Date.now();
    const elapsed = Math.max(1, now - this.reservedAt);
    this.size = Math.min(MAX_BLOCK, Math.max(1, this.size * 2), Math.max(1, Math.round((this.size * BLOCK_SPAN_MS) / elapsed)));
    this.reservedAt = now;
    // Named: as the first statement of its transaction it travels as `EXECUTE` with the held `BEGIN`,
    // which proves `EXECUTE` on the connection, so that later statements can carry the writes held
    // before them (see `statement-batching.ts`) also where creates are rare and each one reserves.
    const rows: { identificatie: string; valid_for: number }[] = await tx
      .select('identificatie', 'valid_for')
      .from(tx.raw('zaak_reserve_identificaties(?)', [this.size]))
      .options({ name: 'zaak_reserve_identificaties' });
    this.block = rows.map((row) => row.identificatie);
    this.next = 0;
    this.expires = rows.length ? now + rows[0].valid_for * 1000 : 0;
  }
}
