import {
  EVIDENCE_TYPES_TEXT,
  MANUAL_ANSWER_LABEL,
  MANUAL_ANSWERS,
  type ManualAnswerKind,
} from '@shared/schemas/manual-tasks';
import { useState, type FormEvent } from 'react';
import { FormError } from '../states';
import { fileToBase64 } from '../../lib/file-base64';

interface AnswerSubmission {
  answer: ManualAnswerKind;
  note?: string;
  evidence?: { fileName: string; contentBase64: string };
}

/** Done (what was deleted, an optional evidence file), Not found, or Cannot (why): the owner's page and the request detail. */
export function AnswerForm(props: {
  pending: boolean;
  error: string | null;
  onAnswer: (answer: AnswerSubmission) => void;
}) {
  const [answer, setAnswer] = useState<ManualAnswerKind>('done');
  const [note, setNote] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setLocalError(null);
    if (answer === 'cannot' && !note.trim()) return setLocalError('Say why it cannot be done.');
    const evidence =
      answer === 'done' && file ? { fileName: file.name, contentBase64: await fileToBase64(file) } : undefined;
    props.onAnswer({ answer, note: note.trim() || undefined, evidence });
  };
  return (
    <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Answer the task">
      <fieldset>
        <legend>Your answer</legend>
        {MANUAL_ANSWERS.map((kind) => (
          <label key={kind} className="radio">
            <input type="radio" name="answer" value={kind} checked={answer === kind} onChange={() => setAnswer(kind)} />{' '}
            {MANUAL_ANSWER_LABEL[kind]}
          </label>
        ))}
      </fieldset>
      <label>
        {answer === 'cannot' ? 'Why it cannot be done' : answer === 'done' ? 'What was deleted' : 'Note (optional)'}
        <textarea name="note" value={note} onChange={(e) => setNote(e.target.value)} rows={3} maxLength={5000} />
      </label>
      {answer === 'done' ? (
        <label>
          Evidence file (optional, {EVIDENCE_TYPES_TEXT}, up to 10 MB)
          <input
            type="file"
            name="evidence"
            accept=".pdf,.png,.jpg,.jpeg,.csv,.txt"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        </label>
      ) : null}
      <FormError message={localError ?? props.error} />
      <button type="submit" className="button button-primary" disabled={props.pending}>
        {props.pending ? 'Sending…' : 'Send answer'}
      </button>
    </form>
  );
}
