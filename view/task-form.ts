// A task's question (an elicitation form) as HTML, with the CLI's field rules (cli/form-fields.ts): a yes/no starts on
// No unless the form says otherwise, an enum is a choice labelled by its titles (enumNames, or titled oneOf/anyOf
// constants), an array of them several choices, a number holds to its bounds, a string to its lengths and format. An
// optional field left empty is left out of the answer; a field that does not fit says why and nothing is sent.
import { choicesOf, isNumeric, problemWith } from '../cli/form-fields.js';
import type { FormField } from '../cli/task-client.js';

export interface Question {
  readonly key: string;
  readonly message: string;
  readonly requestedSchema: Record<string, unknown>;
}

type Answer = string | number | boolean | string[];

/** One field as drawn: how to read its value, and where to say what is wrong with it. */
interface DrawnField {
  readonly name: string;
  /** The value to send, `undefined` to leave it out, or why it does not fit. */
  read(): { value?: Answer } | { problem: string };
  readonly problem: HTMLElement;
}

const INPUT_TYPE_OF_FORMAT: Record<string, string> = { email: 'email', uri: 'url', date: 'date' };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** Draws `question` into `section`; `send` gets the answer when the person accepts (checked) or declines. */
export function drawQuestion(
  section: HTMLElement,
  question: Question,
  send: (action: 'accept' | 'decline', content?: Record<string, Answer>) => void,
): void {
  const schema = question.requestedSchema as { properties?: Record<string, FormField>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, field], index) =>
    drawField(`field-${index}`, name, field, required.has(name)),
  );
  const submit = element('button', { type: 'button', id: 'answer', textContent: 'Send answer' });
  const decline = element('button', { type: 'button', id: 'decline', textContent: 'Decline' });
  submit.addEventListener('click', () => {
    const content: Record<string, Answer> = {};
    let fits = true;
    for (const field of fields) {
      const read = field.read();
      field.problem.textContent = 'problem' in read ? read.problem : '';
      if ('problem' in read) fits = false;
      else if (read.value !== undefined) content[field.name] = read.value;
    }
    if (fits) send('accept', content);
  });
  decline.addEventListener('click', () => send('decline'));
  section.replaceChildren(
    element('h2', { textContent: 'The task asks' }),
    element('p', { textContent: question.message }),
    ...fields.map((field) => field.node),
    element('div', { className: 'buttons' }, submit, decline),
  );
}

function drawField(id: string, name: string, field: FormField, required: boolean): DrawnField & { node: Node } {
  const problem = element('p', { className: 'problem', id: `${id}-problem` });
  const hint = [field.description, required ? undefined : 'optional'].filter(Boolean).join(' · ');
  const label = element(
    'label',
    { htmlFor: id },
    field.title ?? name,
    ...(hint ? [' ', element('span', { className: 'hint', textContent: `(${hint})` })] : []),
  );
  const drawn = drawControl(id, field, required);
  // A problem is about the value it was found in: editing the field clears it until the next send.
  drawn.control.addEventListener('input', () => (problem.textContent = ''));
  return {
    name,
    problem,
    read: drawn.read,
    node: element('div', { className: 'field' }, label, drawn.control, problem),
  };
}

function drawControl(id: string, field: FormField, required: boolean): Pick<DrawnField, 'read'> & { control: Element } {
  if (field.type === 'boolean') {
    // Two explicit choices, No checked unless the form's default says yes: an approval is never one click away.
    const yes = element('input', { type: 'radio', name: id, id, value: 'yes', checked: field.default === true });
    const no = element('input', {
      type: 'radio',
      name: id,
      id: `${id}-no`,
      value: 'no',
      checked: field.default !== true,
    });
    const control = element(
      'fieldset',
      {},
      element('label', { className: 'hint' }, yes, ' Yes'),
      element('label', { className: 'hint' }, no, ' No'),
    );
    return { control, read: () => ({ value: yes.checked }) };
  }
  if (field.type === 'array') {
    const boxes = (field.items ? (choicesOf(field.items) ?? []) : []).map((choice, index) => {
      const box = element('input', { type: 'checkbox', id: `${id}-${index}`, value: choice.value });
      box.checked = Array.isArray(field.default) && field.default.includes(choice.value);
      return { box, node: element('label', { className: 'hint' }, box, ` ${choice.label}`) };
    });
    const least = Math.max(field.minItems ?? 0, required ? 1 : 0);
    const read = () => {
      const values = boxes.filter(({ box }) => box.checked).map(({ box }) => box.value);
      if (values.length < least) return { problem: `Choose at least ${least}.` };
      return values.length === 0 && !required ? {} : { value: values };
    };
    return { control: element('fieldset', { id }, ...boxes.map(({ node }) => node)), read };
  }
  const choices = choicesOf(field);
  if (choices !== undefined) {
    const options = choices.map((choice) => element('option', { value: choice.value, textContent: choice.label }));
    const select = element(
      'select',
      { id },
      ...(required ? [] : [element('option', { value: '', textContent: '(none)' })]),
      ...options,
    );
    if (typeof field.default === 'string') select.value = field.default;
    return { control: select, read: () => (select.value === '' ? {} : { value: select.value }) };
  }
  const input = element('input', {
    id,
    type: isNumeric(field) ? 'number' : (INPUT_TYPE_OF_FORMAT[field.format ?? ''] ?? 'text'),
    ...(field.default !== undefined ? { value: String(field.default) } : {}),
    ...(field.format === 'date-time' ? { placeholder: '2026-12-07T09:30:00Z' } : {}),
  });
  if (field.minimum !== undefined) input.min = String(field.minimum);
  if (field.maximum !== undefined) input.max = String(field.maximum);
  if (isNumeric(field)) input.step = field.type === 'integer' ? '1' : 'any';
  if (field.maxLength !== undefined) input.maxLength = field.maxLength;
  const read = () => {
    const value = input.value.trim() === '' ? '' : input.value;
    const problem = problemWith(field, value, required);
    if (problem !== undefined) return { problem };
    if (value === '') return {};
    return { value: isNumeric(field) ? Number(value) : value };
  };
  return { control: input, read };
}
