/** Confidentiality levels, least to most confidential: the order defines "at most". */
export const VERTROUWELIJKHEIDAANDUIDING = [
  'openbaar',
  'beperkt_openbaar',
  'intern',
  'zaakvertrouwelijk',
  'vertrouwelijk',
  'confidentieel',
  'geheim',
  'zeer_geheim',
] as const;

export function vertrouwelijkheidRank(value: string): number {
  return VERTROUWELIJKHEIDAANDUIDING.indexOf(value as (typeof VERTROUWELIJKHEIDAANDUIDING)[number]) + 1;
}

export const BETALINGSINDICATIE = ['nvt', 'nog_niet', 'gedeeltelijk', 'geheel'] as const;
export const BETALINGSINDICATIE_WEERGAVE: Record<string, string> = {
  '': '',
  nvt: 'Er is geen sprake van te betalen, met de zaak gemoeide, kosten.',
  nog_niet: 'De met de zaak gemoeide kosten zijn (nog) niet betaald.',
  gedeeltelijk: 'De met de zaak gemoeide kosten zijn gedeeltelijk betaald.',
  geheel: 'De met de zaak gemoeide kosten zijn geheel betaald.',
};
export const ARCHIEFNOMINATIE = ['blijvend_bewaren', 'vernietigen'] as const;
export const ARCHIEFSTATUS = ['nog_te_archiveren', 'gearchiveerd', 'gearchiveerd_procestermijn_onbekend', 'overgedragen'] as const;
export const AARD_RELATIE = ['vervolg', 'onderwerp', 'bijdrage'] as const;
export const BETROKKENE_TYPE = [
  'natuurlijk_persoon',
  'niet_natuurlijk_persoon',
  'vestiging',
  'organisatorische_eenheid',
  'medewerker',
] as const;
export const OMSCHRIJVING_GENERIEK = [
  'adviseur',
  'behandelaar',
  'belanghebbende',
  'beslisser',
  'initiator',
  'klantcontacter',
  'zaakcoordinator',
  'mede_initiator',
] as const;
