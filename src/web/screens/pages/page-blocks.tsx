// The page's blocks in order: each a group named by its position, with its text, a link block's
// destination (one of the workspace's short links, found by searching them, or a URL that saving
// makes into a short link), and moving and removing. A role that changes nothing reads them.
import { useId } from 'react';
import { TextAreaField, TextField } from '../../components/fields.tsx';
import { LinkSearch } from '../../components/link-search.tsx';
import { ItemActions, useOrderedItems } from '../../components/ordered-items.tsx';
import {
  BLOCK_NAMES,
  blockField,
  LIMITS,
  newBlock,
  type BlockDraft,
  type BlockType,
  type PageField,
} from './page-form.ts';

type Errors = Partial<Record<PageField, string>>;

export function BlockList({
  workspaceId,
  blocks,
  onChange,
  errors,
  editable,
}: {
  workspaceId: string;
  blocks: BlockDraft[];
  onChange: (blocks: BlockDraft[]) => void;
  errors: Errors;
  editable: boolean;
}) {
  const change = (key: string, patch: Partial<BlockDraft>) =>
    onChange(blocks.map((b) => (b.key === key ? { ...b, ...patch } : b)));
  const list = useOrderedItems(blocks, onChange, { noun: 'Block', addId: 'add-blocks' });
  const add = (type: BlockType) =>
    list.add(newBlock(type), 'input, textarea', `${BLOCK_NAMES[type]} block added as block ${blocks.length + 1}.`);

  const full = blocks.length >= LIMITS.blocks;
  return (
    <>
      {blocks.length === 0 ? (
        <p className="muted blocks-empty">
          No blocks yet. {editable ? 'Add a heading, a paragraph or a link below.' : ''}
        </p>
      ) : (
        <ol className="block-list">
          {blocks.map((b, i) => (
            <li key={b.key} data-item-key={b.key}>
              <BlockItem
                workspaceId={workspaceId}
                block={b}
                position={i + 1}
                count={blocks.length}
                errors={errors}
                editable={editable}
                onChange={(patch) => change(b.key, patch)}
                onMove={(by) => list.move(i, by)}
                onRemove={() => list.remove(i)}
              />
            </li>
          ))}
        </ol>
      )}
      {editable ? (
        <div className="block-add" role="group" aria-label="Add a block" id="add-blocks" tabIndex={-1}>
          {(['heading', 'paragraph', 'link'] as const).map((type) => (
            <button key={type} type="button" className="button button-small" onClick={() => add(type)} disabled={full}>
              <span aria-hidden="true">+</span> Add {BLOCK_NAMES[type].toLowerCase()}
            </button>
          ))}
          <span className="field-hint">
            {full ? `A page has at most ${LIMITS.blocks} blocks.` : `${blocks.length} of ${LIMITS.blocks} blocks.`}
          </span>
        </div>
      ) : null}
    </>
  );
}

function BlockItem({
  workspaceId,
  block: b,
  position,
  count,
  errors,
  editable,
  onChange,
  onMove,
  onRemove,
}: {
  workspaceId: string;
  block: BlockDraft;
  position: number;
  count: number;
  errors: Errors;
  editable: boolean;
  onChange: (patch: Partial<BlockDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const blockError = errors[blockField(b.key, 'block')];
  const errorId = useId();
  const textLabel = b.type === 'heading' ? 'Heading text' : b.type === 'paragraph' ? 'Paragraph text' : 'Link text';
  const text = {
    label: textLabel,
    value: b.text,
    onChange: (e: { target: { value: string } }) => onChange({ text: e.target.value }),
    error: errors[blockField(b.key, 'text')],
    maxLength: LIMITS[b.type],
  };
  return (
    <fieldset className={`block-item block-${b.type}`} aria-describedby={blockError ? errorId : undefined}>
      <legend>
        <span className="block-number">Block {position}</span>
        <span className="visually-hidden">: </span>
        <span className="block-type">{BLOCK_NAMES[b.type]}</span>
      </legend>
      {editable ? (
        <ItemActions noun="Block" position={position} count={count} onMove={onMove} onRemove={onRemove} />
      ) : null}
      <div className="block-body">
        {b.type === 'paragraph' ? <TextAreaField {...text} rows={3} /> : <TextField {...text} />}
        {b.type === 'link' ? (
          <LinkTarget
            workspaceId={workspaceId}
            block={b}
            position={position}
            errors={errors}
            editable={editable}
            onChange={onChange}
          />
        ) : null}
        {blockError ? (
          <p id={errorId} className="field-error">
            {blockError}
          </p>
        ) : null}
      </div>
    </fieldset>
  );
}

function LinkTarget({
  workspaceId,
  block: b,
  position,
  errors,
  editable,
  onChange,
}: {
  workspaceId: string;
  block: BlockDraft;
  position: number;
  errors: Errors;
  editable: boolean;
  onChange: (patch: Partial<BlockDraft>) => void;
}) {
  const name = useId();
  const linkError = errors[blockField(b.key, 'linkId')];
  const linkErrorId = useId();
  const chosen = b.linkId && b.target === 'link';
  return (
    <>
      {editable ? (
        <fieldset className="choice-row">
          <legend>Leads to</legend>
          <label className="check">
            <input
              type="radio"
              name={name}
              checked={b.target === 'link'}
              onChange={() => onChange({ target: 'link' })}
            />
            One of your short links
          </label>
          <label className="check">
            <input type="radio" name={name} checked={b.target === 'url'} onChange={() => onChange({ target: 'url' })} />
            A new short link to a URL
          </label>
        </fieldset>
      ) : null}
      {b.target === 'url' ? (
        <TextField
          label="Destination URL"
          type="url"
          inputMode="url"
          value={b.url}
          onChange={(e) => onChange({ url: e.target.value })}
          error={errors[blockField(b.key, 'url')]}
          hint="Saving makes a short link to it, titled with the link's text."
          placeholder="https://example.com/page"
          maxLength={2048}
        />
      ) : chosen ? (
        <div className="chosen-link">
          <p className="chosen-link-text">
            {b.link?.shortUrl ? (
              <>
                <span className="muted">Short link </span>
                <strong className="mono">{b.link.shortUrl.replace(/^https?:\/\//, '')}</strong>
                {b.link.destination ? (
                  <span className="muted chosen-destination" title={b.link.destination}>
                    → {b.link.destination}
                  </span>
                ) : null}
              </>
            ) : (
              <strong>The short link of this block was deleted: choose another, or remove the block.</strong>
            )}
          </p>
          {editable ? (
            <button
              type="button"
              className="button button-small"
              aria-label={`Change the short link of block ${position}`}
              aria-describedby={linkError ? linkErrorId : undefined}
              data-problem={linkError ? true : undefined}
              onClick={() => onChange({ linkId: '', link: null })}
            >
              Change
            </button>
          ) : null}
        </div>
      ) : editable ? (
        <LinkSearch
          workspaceId={workspaceId}
          activeOnly
          listLabel={`Short links for block ${position}`}
          choiceLabel={(l) => `Use ${l.slug} for block ${position}`}
          emptyHint="Choose “A new short link to a URL” instead."
          onPick={(l) =>
            onChange({
              linkId: l.id,
              link: { shortUrl: l.shortUrl, destination: l.originalUrl },
              ...(b.text.trim() ? {} : { text: l.title ?? l.slug }),
            })
          }
          describedBy={linkError ? linkErrorId : undefined}
        />
      ) : (
        <p className="muted">No short link chosen.</p>
      )}
      {linkError ? (
        <p id={linkErrorId} className="field-error">
          {linkError}
        </p>
      ) : null}
    </>
  );
}
