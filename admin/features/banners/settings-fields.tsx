import { FormLayout, InlineGrid, TextField } from '@shopify/polaris';
import { useTranslation } from 'react-i18next';
import type { ErrorOf } from './form-fields';

/** `set('title')('Sale')`: one setting changed, the others kept. */
export function setter<S extends object>(settings: S, onChange: (next: S) => void) {
  return <K extends keyof S>(key: K) =>
    (value: S[K]) =>
      onChange({ ...settings, [key]: value });
}

export interface HeadingFieldProps<S extends { title: string }> {
  settings: S;
  onChange(next: S): void;
  errorOf: ErrorOf;
  disabled?: boolean;
}

/** A widget's heading, its `title` setting. */
export function HeadingField<S extends { title: string }>({ settings, onChange, errorOf, disabled }: HeadingFieldProps<S>) {
  const { t } = useTranslation();
  return (
    <TextField
      label={t('widgets.fields.heading')}
      value={settings.title}
      onChange={setter(settings, onChange)('title')}
      autoComplete="off"
      maxLength={200}
      disabled={disabled}
      error={errorOf('title')}
    />
  );
}

export interface TitleTextFieldsProps<S extends { title: string; text: string }> extends HeadingFieldProps<S> {
  /** How many lines the text field shows. */
  textLines?: number;
  /** Count the text's characters under it. */
  countText?: boolean;
}

/**
 * A widget's heading and the text under it (the banner, the contact form and the spin wheel). A form of its
 * own, so that inside a section's FormLayout the two fields keep the spacing of two separate items.
 */
export function TitleTextFields<S extends { title: string; text: string }>({
  settings,
  onChange,
  errorOf,
  disabled,
  textLines = 2,
  countText,
}: TitleTextFieldsProps<S>) {
  const { t } = useTranslation();
  return (
    <FormLayout>
      <HeadingField settings={settings} onChange={onChange} errorOf={errorOf} disabled={disabled} />
      <TextField
        label={t('widgets.fields.text')}
        value={settings.text}
        onChange={setter(settings, onChange)('text')}
        autoComplete="off"
        multiline={textLines}
        maxLength={500}
        showCharacterCount={countText}
        disabled={disabled}
        error={errorOf('text')}
      />
    </FormLayout>
  );
}

export interface ItemLinkImageFieldsProps<I extends { url?: string | null; image_url?: string | null }> {
  item: I;
  setItem(item: I): void;
  /** The link's label: it says where the link leads. */
  urlLabel: string;
  /** The errors of the item's own fields (`url`, `image_url`). */
  errorOf: ErrorOf;
  disabled?: boolean;
}

/** A list item's link and picture, side by side (a suggestion's item, a fake-buyer notice's product). */
export function ItemLinkImageFields<I extends { url?: string | null; image_url?: string | null }>({
  item,
  setItem,
  urlLabel,
  errorOf,
  disabled,
}: ItemLinkImageFieldsProps<I>) {
  const { t } = useTranslation();
  return (
    <InlineGrid columns={{ xs: 1, sm: 2 }} gap="300">
      <TextField
        label={urlLabel}
        type="url"
        value={item.url ?? ''}
        onChange={(url) => setItem({ ...item, url })}
        autoComplete="off"
        disabled={disabled}
        error={errorOf('url')}
      />
      <TextField
        label={t('widgets.fields.imageUrl')}
        type="url"
        value={item.image_url ?? ''}
        onChange={(url) => setItem({ ...item, image_url: url })}
        autoComplete="off"
        disabled={disabled}
        error={errorOf('image_url')}
      />
    </InlineGrid>
  );
}
