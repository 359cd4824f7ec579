import { WidgetScreen } from '../banners/widget-screen';
import { SuggestionSettingsSection } from './suggestion-settings';

/** /suggestion: the promotion and recommendation boxes, listed, and each one's editor. */
export function SuggestionsPage() {
  return (
    <WidgetScreen
      type="suggestion"
      path="/suggestion"
      titleKey="menu.suggestions"
      subtitleKey="suggestions.list.subtitle"
      createKey="suggestions.list.create"
      emptyTitleKey="suggestions.list.emptyTitle"
      emptyBodyKey="suggestions.list.emptyBody"
      newTitleKey="suggestions.list.newTitle"
      renderSettings={(props) => <SuggestionSettingsSection {...props} />}
    />
  );
}
