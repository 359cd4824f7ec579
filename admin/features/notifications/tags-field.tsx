import { BlockStack, Button, InlineStack, Tag, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TAG_MAX_LENGTH, readTag } from '../../../shared/contract';

export interface TagsFieldProps {
  label: string;
  helpText?: string;
  tags: string[];
  onChange(tags: string[]): void;
  /** A problem of the list as a whole (from the server). */
  error?: string;
  max?: number;
  disabled?: boolean;
}

/** A list of tags: one typed at a time, checked with the contract's Tag rule (spec §5 "tag must be valid"), removed with ×. */
export function TagsField({ label, helpText, tags, onChange, error, max = 20, disabled }: TagsFieldProps) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  function add() {
    const { tag, problem: typed } = readTag(text);
    if (typed !== undefined) {
      setProblem(typed);
      return;
    }
    if (!tags.includes(tag)) onChange([...tags, tag]);
    setText('');
    setProblem(null);
  }

  return (
    <BlockStack gap="200">
      <div
        onKeyDown={(event) => {
          // Enter adds the tag instead of submitting the form.
          if (event.key === 'Enter') {
            event.preventDefault();
            add();
          }
        }}
      >
        <TextField
          label={label}
          helpText={helpText}
          value={text}
          onChange={(value) => {
            setText(value);
            setProblem(null);
          }}
          autoComplete="off"
          maxLength={TAG_MAX_LENGTH}
          disabled={disabled || tags.length >= max}
          error={problem ? t(problem) : error}
          connectedRight={
            <Button onClick={add} disabled={disabled || text.trim() === '' || tags.length >= max}>
              {t('notificationUi.tags.add')}
            </Button>
          }
        />
      </div>
      {tags.length > 0 ? (
        <InlineStack gap="100">
          {tags.map((tag) => (
            <Tag key={tag} disabled={disabled} onRemove={() => onChange(tags.filter((other) => other !== tag))} accessibilityLabel={t('notificationUi.tags.remove', { tag })}>
              {tag}
            </Tag>
          ))}
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}
