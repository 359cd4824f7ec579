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
  const language = useAppStore(selectLanguage);
  const setLanguage = useAppStore((state) => state.setLanguage);
  const showToast = useAppStore((state) => state.showToast);

  function choose(next: Language) {
    setLanguage(next);
    showToast(i18n.getFixedT(next)('common.switchLanguageSuccess'));
  }

  return <LanguageButtons language={language} onChange={choose} />;
}

export interface LanguageButtonsProps {
  /** The language spoken now (its button pressed and disabled). */
  language: Language;
  /** Another one was picked. */
  onChange(language: Language): void;
}

/**
 * The vi / en buttons themselves, saying nothing of where the choice goes: the console's setting (LanguageSwitch) or a
 * page's own language (the public playerinfo page, where a shopper's pick is not the console's setting).
 */
export function LanguageButtons({ language, onChange }: LanguageButtonsProps) {
  const { t } = useTranslation();
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
            onClick={() => onChange(code)}
          >
            {code.toUpperCase()}
          </Button>
        ))}
      </ButtonGroup>
    </div>
  );
}
