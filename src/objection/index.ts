/**
 * `zaakregister/objection`: objection models of the registry's tables, for plugins and admin code
 * that query zaken and their records beyond what `services.zaken` offers (reports, exports, joins).
 * Read-only: writes go through `services.zaken` (or the API), so that the business rules, the audit
 * trail, `resourceChanged` hooks and the outbox run. Properties are camelCase (`zaakId`); `where`
 * clauses name the table's columns (`zaak_id`). Bind them to the registry's database with `zaakModels(registry.services.storage)`.
 */
import type { Knex } from 'knex';
import { Model, snakeCaseMappers, type ColumnNameMappers, type RelationMappings, type StaticHookArguments } from 'objection';

/** The message of a refused write: what to use instead. */
const READ_ONLY = 'the zaakregister objection models are read-only: write through registry.services.zaken (or the API), so that rules, audit trail and outbox run';

/** The base of the models: snake_case columns as camelCase properties, and no writes. */
export class RegistryModel extends Model {
  /** The table's columns as the migrations create them (checked against the migrated schema by the registry's tests). */
  static columns: readonly string[] = [];

  static override get columnNameMappers(): ColumnNameMappers {
    return snakeCaseMappers();
  }

  static override beforeInsert(_args: StaticHookArguments<RegistryModel>): never {
    throw new Error(READ_ONLY);
  }

  static override beforeUpdate(_args: StaticHookArguments<RegistryModel>): never {
    throw new Error(READ_ONLY);
  }

  static override beforeDelete(_args: StaticHookArguments<RegistryModel>): never {
    throw new Error(READ_ONLY);
  }
}

export class Zaak extends RegistryModel {
  static override tableName = 'zaak';
  static override columns = ['id', 'uuid', 'identificatie', 'bronorganisatie', 'omschrijving', 'toelichting', 'zaaktype', 'registratiedatum', 'verantwoordelijke_organisatie', 'startdatum', 'einddatum', 'einddatum_gepland', 'uiterlijke_einddatum_afdoening', 'publicatiedatum', 'communicatiekanaal', 'producten_of_diensten', 'vertrouwelijkheidaanduiding', 'vertrouwelijkheid_rank', 'betalingsindicatie', 'laatste_betaaldatum', 'zaakgeometrie', 'verlenging_reden', 'verlenging_duur', 'opschorting_indicatie', 'opschorting_reden', 'selectielijstklasse', 'hoofdzaak_id', 'relevante_andere_zaken', 'kenmerken', 'archiefnominatie', 'archiefstatus', 'archiefactiedatum', 'opdrachtgevende_organisatie', 'processobjectaard', 'startdatum_bewaartermijn', 'processobject_datumkenmerk', 'processobject_identificatie', 'processobject_objecttype', 'processobject_registratie', 'created_at', 'updated_at'] as const;
  declare id: number;
  declare uuid: string;
  declare identificatie: string;
  declare bronorganisatie: string;
  declare omschrijving: string;
  declare toelichting: string;
  declare zaaktype: string;
  declare registratiedatum: string;
  declare verantwoordelijkeOrganisatie: string;
  declare startdatum: string;
  declare einddatum: string | null;
  declare einddatumGepland: string | null;
  declare uiterlijkeEinddatumAfdoening: string | null;
  declare publicatiedatum: string | null;
  declare communicatiekanaal: string;
  declare productenOfDiensten: unknown;
  declare vertrouwelijkheidaanduiding: string;
  declare vertrouwelijkheidRank: number;
  declare betalingsindicatie: string;
  declare laatsteBetaaldatum: Date | null;
  declare zaakgeometrie: unknown;
  declare verlengingReden: string;
  declare verlengingDuur: string | null;
  declare opschortingIndicatie: boolean;
  declare opschortingReden: string;
  declare selectielijstklasse: string;
  declare hoofdzaakId: number | null;
  declare relevanteAndereZaken: unknown;
  declare kenmerken: unknown;
  declare archiefnominatie: string | null;
  declare archiefstatus: string;
  declare archiefactiedatum: string | null;
  declare opdrachtgevendeOrganisatie: string;
  declare processobjectaard: string | null;
  declare startdatumBewaartermijn: string | null;
  declare processobjectDatumkenmerk: string;
  declare processobjectIdentificatie: string;
  declare processobjectObjecttype: string;
  declare processobjectRegistratie: string;
  declare createdAt: Date;
  declare updatedAt: Date;
  /** Loaded with `withGraphFetched('hoofdzaak')`. */
  declare hoofdzaak?: Zaak | null;
  /** Loaded with `withGraphFetched('deelzaken')`. */
  declare deelzaken?: Zaak[];
  /** Loaded with `withGraphFetched('rollen')`. */
  declare rollen?: Rol[];
  /** Loaded with `withGraphFetched('statussen')`. */
  declare statussen?: Status[];
  /** Loaded with `withGraphFetched('zaakobjecten')`. */
  declare zaakobjecten?: Zaakobject[];
  /** Loaded with `withGraphFetched('zaakinformatieobjecten')`. */
  declare zaakinformatieobjecten?: Zaakinformatieobject[];
  /** Loaded with `withGraphFetched('zaakeigenschappen')`. */
  declare zaakeigenschappen?: Zaakeigenschap[];
  /** Loaded with `withGraphFetched('klantcontacten')`. */
  declare klantcontacten?: Klantcontact[];
  /** Loaded with `withGraphFetched('zaakcontactmomenten')`. */
  declare zaakcontactmomenten?: Zaakcontactmoment[];
  /** Loaded with `withGraphFetched('zaakverzoeken')`. */
  declare zaakverzoeken?: Zaakverzoek[];
  /** Loaded with `withGraphFetched('zaakbesluiten')`. */
  declare zaakbesluiten?: Zaakbesluit[];
  /** Loaded with `withGraphFetched('audittrail')`. */
  declare audittrail?: AuditTrail[];
  /** Loaded with `withGraphFetched('resultaat')`. */
  declare resultaat?: Resultaat | null;
  static override get relationMappings(): RelationMappings {
    return {
      hoofdzaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaak.hoofdzaak_id', to: 'zaak.id' } },
      deelzaken: { relation: Model.HasManyRelation, modelClass: Zaak, join: { from: 'zaak.id', to: 'zaak.hoofdzaak_id' } },
      rollen: { relation: Model.HasManyRelation, modelClass: Rol, join: { from: 'zaak.id', to: 'rol.zaak_id' } },
      statussen: { relation: Model.HasManyRelation, modelClass: Status, join: { from: 'zaak.id', to: 'status.zaak_id' } },
      zaakobjecten: { relation: Model.HasManyRelation, modelClass: Zaakobject, join: { from: 'zaak.id', to: 'zaakobject.zaak_id' } },
      zaakinformatieobjecten: { relation: Model.HasManyRelation, modelClass: Zaakinformatieobject, join: { from: 'zaak.id', to: 'zaakinformatieobject.zaak_id' } },
      zaakeigenschappen: { relation: Model.HasManyRelation, modelClass: Zaakeigenschap, join: { from: 'zaak.id', to: 'zaakeigenschap.zaak_id' } },
      klantcontacten: { relation: Model.HasManyRelation, modelClass: Klantcontact, join: { from: 'zaak.id', to: 'klantcontact.zaak_id' } },
      zaakcontactmomenten: { relation: Model.HasManyRelation, modelClass: Zaakcontactmoment, join: { from: 'zaak.id', to: 'zaakcontactmoment.zaak_id' } },
      zaakverzoeken: { relation: Model.HasManyRelation, modelClass: Zaakverzoek, join: { from: 'zaak.id', to: 'zaakverzoek.zaak_id' } },
      zaakbesluiten: { relation: Model.HasManyRelation, modelClass: Zaakbesluit, join: { from: 'zaak.id', to: 'zaakbesluit.zaak_id' } },
      audittrail: { relation: Model.HasManyRelation, modelClass: AuditTrail, join: { from: 'zaak.id', to: 'audittrail.zaak_id' } },
      resultaat: { relation: Model.HasOneRelation, modelClass: Resultaat, join: { from: 'zaak.id', to: 'resultaat.zaak_id' } },
    };
  }
}

export class Rol extends RegistryModel {
  static override tableName = 'rol';
  static override columns = ['id', 'uuid', 'zaak_id', 'betrokkene', 'betrokkene_type', 'afwijkende_naam_betrokkene', 'roltype', 'omschrijving', 'omschrijving_generiek', 'roltoelichting', 'registratiedatum', 'indicatie_machtiging', 'contactpersoon_rol', 'betrokkene_identificatie'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare betrokkene: string;
  declare betrokkeneType: string;
  declare afwijkendeNaamBetrokkene: string;
  declare roltype: string;
  declare omschrijving: string;
  declare omschrijvingGeneriek: string;
  declare roltoelichting: string;
  declare registratiedatum: Date;
  declare indicatieMachtiging: string;
  declare contactpersoonRol: unknown;
  declare betrokkeneIdentificatie: unknown;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'rol.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Status extends RegistryModel {
  static override tableName = 'status';
  static override columns = ['id', 'uuid', 'zaak_id', 'statustype', 'datum_status_gezet', 'statustoelichting', 'gezetdoor_id'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare statustype: string;
  declare datumStatusGezet: Date;
  declare statustoelichting: string;
  declare gezetdoorId: number | null;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  /** Loaded with `withGraphFetched('gezetdoor')`. */
  declare gezetdoor?: Rol | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'status.zaak_id', to: 'zaak.id' } },
      gezetdoor: { relation: Model.BelongsToOneRelation, modelClass: Rol, join: { from: 'status.gezetdoor_id', to: 'rol.id' } },
    };
  }
}

export class Resultaat extends RegistryModel {
  static override tableName = 'resultaat';
  static override columns = ['id', 'uuid', 'zaak_id', 'resultaattype', 'toelichting'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare resultaattype: string;
  declare toelichting: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'resultaat.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Zaakobject extends RegistryModel {
  static override tableName = 'zaakobject';
  static override columns = ['id', 'uuid', 'zaak_id', 'object', 'zaakobjecttype', 'object_type', 'object_type_overige', 'object_type_overige_definitie', 'relatieomschrijving', 'object_identificatie'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare object: string;
  declare zaakobjecttype: string;
  declare objectType: string;
  declare objectTypeOverige: string;
  declare objectTypeOverigeDefinitie: unknown;
  declare relatieomschrijving: string;
  declare objectIdentificatie: unknown;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakobject.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Zaakinformatieobject extends RegistryModel {
  static override tableName = 'zaakinformatieobject';
  static override columns = ['id', 'uuid', 'zaak_id', 'informatieobject', 'aard_relatie', 'titel', 'beschrijving', 'registratiedatum', 'vernietigingsdatum', 'status_id'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare informatieobject: string;
  declare aardRelatie: string;
  declare titel: string;
  declare beschrijving: string;
  declare registratiedatum: Date;
  declare vernietigingsdatum: Date | null;
  declare statusId: number | null;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  /** Loaded with `withGraphFetched('status')`. */
  declare status?: Status | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakinformatieobject.zaak_id', to: 'zaak.id' } },
      status: { relation: Model.BelongsToOneRelation, modelClass: Status, join: { from: 'zaakinformatieobject.status_id', to: 'status.id' } },
    };
  }
}

export class Zaakeigenschap extends RegistryModel {
  static override tableName = 'zaakeigenschap';
  static override columns = ['id', 'uuid', 'zaak_id', 'eigenschap', 'naam', 'waarde'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare eigenschap: string;
  declare naam: string;
  declare waarde: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakeigenschap.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Klantcontact extends RegistryModel {
  static override tableName = 'klantcontact';
  static override columns = ['id', 'uuid', 'zaak_id', 'identificatie', 'datumtijd', 'kanaal', 'onderwerp', 'toelichting'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare identificatie: string;
  declare datumtijd: Date;
  declare kanaal: string;
  declare onderwerp: string;
  declare toelichting: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'klantcontact.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Zaakcontactmoment extends RegistryModel {
  static override tableName = 'zaakcontactmoment';
  static override columns = ['id', 'uuid', 'zaak_id', 'contactmoment'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare contactmoment: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakcontactmoment.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Zaakverzoek extends RegistryModel {
  static override tableName = 'zaakverzoek';
  static override columns = ['id', 'uuid', 'zaak_id', 'verzoek'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare verzoek: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakverzoek.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class Zaakbesluit extends RegistryModel {
  static override tableName = 'zaakbesluit';
  static override columns = ['id', 'uuid', 'zaak_id', 'besluit'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare besluit: string;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'zaakbesluit.zaak_id', to: 'zaak.id' } },
    };
  }
}

export class AuditTrail extends RegistryModel {
  static override tableName = 'audittrail';
  static override columns = ['id', 'uuid', 'zaak_id', 'bron', 'applicatie_id', 'applicatie_weergave', 'gebruikers_id', 'gebruikers_weergave', 'actie', 'actie_weergave', 'resultaat', 'hoofd_object', 'resource', 'resource_url', 'toelichting', 'resource_weergave', 'aanmaakdatum', 'wijzigingen'] as const;
  declare id: number;
  declare uuid: string;
  declare zaakId: number;
  declare bron: string;
  declare applicatieId: string;
  declare applicatieWeergave: string;
  declare gebruikersId: string;
  declare gebruikersWeergave: string;
  declare actie: string;
  declare actieWeergave: string;
  declare resultaat: number;
  declare hoofdObject: string;
  declare resource: string;
  declare resourceUrl: string;
  declare toelichting: string;
  declare resourceWeergave: string;
  declare aanmaakdatum: Date;
  declare wijzigingen: unknown;
  /** Loaded with `withGraphFetched('zaak')`. */
  declare zaak?: Zaak | null;
  static override get relationMappings(): RelationMappings {
    return {
      zaak: { relation: Model.BelongsToOneRelation, modelClass: Zaak, join: { from: 'audittrail.zaak_id', to: 'zaak.id' } },
    };
  }
}

/** Every model, by name. */
export const MODELS = { Zaak, Rol, Status, Resultaat, Zaakobject, Zaakinformatieobject, Zaakeigenschap, Klantcontact, Zaakcontactmoment, Zaakverzoek, Zaakbesluit, AuditTrail };

/** The models bound to a registry's database (`registry.services.storage`, or anything with its `knex`). */
export function zaakModels(storage: { knex: Knex }): typeof MODELS {
  return Object.fromEntries(Object.entries(MODELS).map(([name, model]) => [name, model.bindKnex(storage.knex)])) as typeof MODELS;
}
