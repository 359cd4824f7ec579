import { BlockStack, Form, FormLayout, Modal } from '@shopify/polaris';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { type ApiError, isApiError } from '../api';
import { type FieldErrors, apiFieldErrors, zodFieldErrors } from './form-errors';
import { FailureBanner } from './failure-banner';

/**
 * A form checked with its shared schema before anything is sent: field problems land on their fields
 * (from the schema, or from the server's INVALID_PARAM `fields`), any other refusal in a banner.
 */
export function useFormSubmit<T>(
  schema: z.ZodType<T>,
  send: (data: T) => Promise<void>,
  /** Turns a refusal without `fields` into field problems (e.g. CONFLICT on the id), or null for the banner. */
  fieldsOf?: (cause: ApiError) => FieldErrors | null,
) {
  const { t } = useTranslation();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(values: unknown) {
    const parsed = schema.safeParse(values);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setFailure(null);
    setSaving(true);
    try {
      await send(parsed.data);
    } catch (cause) {
      const fields = isApiError(cause) ? (cause.fields.length > 0 ? apiFieldErrors(cause.fields) : fieldsOf?.(cause) ?? null) : null;
      if (fields) setErrors(fields);
      else setFailure(isApiError(cause) ? cause.message : t('common.unknownError'));
    } finally {
      setSaving(false);
    }
  }

  return {
    errors,
    failure,
    saving,
    submit,
    dismissFailure: () => setFailure(null),
    /** Shows the refusal of another action of the same form (sending it a code, say) in the same banner. */
    fail: (message: string) => setFailure(message),
  };
}

/**
 * A form's text fields: their values, and for each the props a Polaris TextField takes (value, onChange, and
 * its problem from `errors`, translated).
 */
export function useFormFields<V extends Record<string, string>>(initial: V, errors: FieldErrors) {
  const { t } = useTranslation();
  const [values, setValues] = useState(initial);
  const field = (name: keyof V & string) => ({
    value: values[name],
    onChange: (value: string) => setValues((current) => ({ ...current, [name]: value })),
    error: errors[name] ? t(errors[name]) : undefined,
  });
  return { values, setValues, field };
}

/** What the modal shows of its form's submit: busy, and the refusal that belongs to no field (`useFormSubmit` gives it). */
export interface FormSubmitState {
  saving: boolean;
  failure: string | null;
  dismissFailure(): void;
}

export interface FormModalProps {
  title: string;
  submitLabel: string;
  form: FormSubmitState;
  onSubmit(): void;
  onClose(): void;
  children: ReactNode;
}

/** A Polaris modal holding one form: the refusal banner, the fields, submit (also on Enter) and cancel. */
export function FormModal({ title, submitLabel, form, onSubmit, onClose, children }: FormModalProps) {
  const { t } = useTranslation();
  return (
    <Modal
      open
      onClose={onClose}
      title={title}
      primaryAction={{ content: submitLabel, onAction: onSubmit, loading: form.saving }}
      secondaryActions={[{ content: t('common.cancel'), onAction: onClose, disabled: form.saving }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          <FailureBanner message={form.failure} onDismiss={form.dismissFailure} />
          <Form onSubmit={onSubmit} noValidate>
            <FormLayout>{children}</FormLayout>
          </Form>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
