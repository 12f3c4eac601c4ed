import type { Plugin } from '../plugin.js';

/** One authorization of an application, as the Autorisaties API describes it. */
export interface Autorisatie {
  /** The component it applies to; the Zaken API uses those of `zrc`. */
  component: string;
  scopes: string[];
  zaaktype: string;
  maxVertrouwelijkheidaanduiding: string;
}

/** An application (the Autorisaties API's `Applicatie`): who may do what. */
export interface Applicatie {
  clientIds: string[];
  label: string;
  /** Every operation on every zaak. */
  heeftAlleAutorisaties: boolean;
  autorisaties: Autorisatie[];
}

/** Where the applications come from: the config (static) or the Autorisaties API. */
export interface AuthorizationSource {
  /** The application that holds this client id; undefined when there is none. */
  applicationFor(clientId: string): Promise<Applicatie | undefined>;
  /** Forget cached answers: of one client id, or all of them. */
  invalidate(clientId?: string): void;
  /** Plugins the source needs (a notification webhook, a subscription at start). */
  plugins?(): Plugin[];
  close?(): Promise<void>;
}
