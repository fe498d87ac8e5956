// Sources and assets as the facade answers them: a card or wiki topic, a source document by id,
// a card's relations, an asset's claim ticket. The namespace is settled from the caller and the
// audience policy applied (src/api/audience.ts); the look-ups are the records projection's
// (projections/records/queries.ts).
import { namespaceOf, type Access } from '../access.js';
import { KiokuError } from '../errors.js';
import { canSee } from '../knowledge/audience.js';
import type { AssetPolicy } from '../knowledge/asset-policy.js';
import { evidenceKey } from '../knowledge/evidence.js';
import { assetOf, documentOf, relationsOf, sourceOf, type AssetAnswer, type DocumentAnswer, type RelationsAnswer } from '../../projections/records/queries.js';
import type { KiokuStore } from '../store.js';
import type { AssetQueryInput, InNamespaceInput } from '../wire.js';
import { orgCallerIn, visibleIn } from './audience.js';

/** A card or wiki topic and its active sections the caller may see. */
export function documentIn(store: KiokuStore, layer: 'card' | 'wiki', id: string, input: InNamespaceInput, access: Access): DocumentAnswer {
  const ns = namespaceOf(input.namespace, access);
  return documentOf(store.projections.views.records, ns, layer, id, visibleIn(store, ns, access));
}

/** A source document by id, whatever its layer. */
export function sourceIn(store: KiokuStore, id: string, input: InNamespaceInput, access: Access): DocumentAnswer {
  // the one audience policy (issue 34): a memory the caller may not see is no source of its
  const ns = namespaceOf(input.namespace, access);
  return sourceOf(store.projections.views.records, ns, id, visibleIn(store, ns, access));
}

/** The card ids a card relates to, and the cards relating to it. */
export function relationsIn(store: KiokuStore, cardId: string, input: InNamespaceInput, access: Access): RelationsAnswer {
  return relationsOf(store.projections.views.records, namespaceOf(input.namespace, access), cardId);
}

/** An asset's claim ticket, checked against the file under `policy`; one the caller may not see is not found. */
export function assetIn(store: KiokuStore, policy: AssetPolicy, id: string, input: AssetQueryInput, access: Access): Promise<AssetAnswer> {
  const ns = namespaceOf(input.namespace, access);
  const records = store.projections.views.records;
  const entry = records.get(evidenceKey({ ns, layer: 'asset', id }));
  if (entry && !canSee(entry, orgCallerIn(store, ns, access)))
    throw new KiokuError('KIOKU_NOT_FOUND', `no asset "${id}" in namespace ${ns}`, { details: { id } });
  return assetOf(records, policy, ns, id, input);
}
