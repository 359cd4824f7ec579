import { useMemo } from 'react';
import { AttributeDefinition, EventDefinition, page } from '../../../shared/contract';
import { AREA_ROLES, canAccessRoute } from '../../../shared/permissions';
import { useAllPages, wholeList } from '../../api/use-api-query';
import { useApplicationTags } from '../../components/tag-field';
import { useAppStore } from '../../stores/store';
import type { SegmentEditorProps } from './segment-editor';

/**
 * What a rule's pickers offer (the segment page, a message's filters): the application's attributes and event
 * names, each only for a role with its area (spec §6) and only when the whole list loaded (wholeList); otherwise
 * undefined, and the names are typed. And its most held tags, suggested as a tag is typed (useApplicationTags).
 * `enabled` false loads nothing (a message's filters while they are off).
 */
export function useRuleChoices(base: string, enabled = true): Pick<SegmentEditorProps, 'attributes' | 'events' | 'tags'> {
  const roles = useAppStore((state) => state.roles);
  const attributes = useAttributeChoices(base, enabled);
  const events = useAllPages(enabled && canAccessRoute(roles, { roles: AREA_ROLES.events }) ? `${base}/event` : null, page(EventDefinition));
  const eventNames = useMemo(() => wholeList(events.data)?.map((event) => event.name), [events.data]);
  // The tags players have, offered as one is typed.
  const tags = useApplicationTags(enabled);
  return { attributes, events: eventNames, tags: tags.data?.items };
}

/** The application's attribute definitions, for a role with their area and once the whole list loaded (a message's personal values too). */
export function useAttributeChoices(base: string, enabled = true): readonly AttributeDefinition[] | undefined {
  const roles = useAppStore((state) => state.roles);
  const attributes = useAllPages(enabled && canAccessRoute(roles, { roles: AREA_ROLES.attributes }) ? `${base}/attribute` : null, page(AttributeDefinition));
  return wholeList(attributes.data);
}
