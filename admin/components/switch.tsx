import { BlockStack, Text } from '@shopify/polaris';
import { useId } from 'react';

export interface SwitchProps {
  /** The visible label; it is also the switch's accessible name. */
  label: string;
  /** A line under the label that says what the switch does. */
  helpText?: string;
  checked: boolean;
  /** While a change is being saved: the switch can't be flipped again. */
  disabled?: boolean;
  onChange(checked: boolean): void;
}

/** An on/off switch (role="switch"): Polaris 13 has none, and a checkbox reads as a form field to fill. */
export function Switch({ label, helpText, checked, disabled, onChange }: SwitchProps) {
  const id = useId();
  return (
    <div className="nudge-switch">
      <BlockStack gap="100">
        <label htmlFor={id}>
          <Text as="span" variant="bodyMd" fontWeight="semibold">
            {label}
          </Text>
        </label>
        {helpText ? (
          <Text as="span" variant="bodySm" tone="subdued">
            {helpText}
          </Text>
        ) : null}
      </BlockStack>
      <button
        id={id}
        type="button"
        role="switch"
        aria-checked={checked}
        disabled={disabled}
        className="nudge-switch-control"
        onClick={() => onChange(!checked)}
      />
    </div>
  );
}
