import { Button, ButtonGroup } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '../../../shared/i18n';
import { selectLanguage } from '../../stores/settings-slice';
import { useAppStore } from '../../stores/store';
import { i18n } from '../i18n';

/** The names of the languages, each written in itself, so a reader of neither can find theirs. */
const NATIVE_NAMES: Record<Language, string> = { vi: 'Tiếng Việt', en: 'English' };

/** vi / en: the active language is disabled; switching says 'Switch Language Success' (spec §2). */
export function LanguageSwitch() {
  const { t } = useTranslation();
  const language = useAppStore(selectLanguage);
  const setLanguage = useAppStore((state) => state.setLanguage);
  const showToast = useAppStore((state) => state.showToast);

  function choose(next: Language) {
    setLanguage(next);
    showToast(i18n.getFixedT(next)('common.switchLanguageSuccess'));
  }

  return (
    <div className="nudge-language-switch" role="group" aria-label={t('layout.language')}>
      <ButtonGroup variant="segmented">
        {LANGUAGES.map((code) => (
          <Button
            key={code}
            size="slim"
            pressed={language === code}
            disabled={language === code}
            accessibilityLabel={NATIVE_NAMES[code]}
            onClick={() => choose(code)}
          >
            {code.toUpperCase()}
          </Button>
        ))}
      </ButtonGroup>
    </div>
  );
}
