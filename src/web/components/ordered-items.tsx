// Lists a person puts in order by hand (a bio page's blocks, a link's routing rules): each item's
// Up, Down and Remove buttons, and where focus goes after adding, moving or removing, so that a
// keyboard user keeps their place and a screen reader says what happened. Each item's element
// carries `data-item-key` (its draft's key); the list's add controls carry `addId`.
import { useEffect, useState } from 'react';
import { announce } from '../lib/announce.ts';

type FocusAfter = { key: string; selector: string } | null;

export function useOrderedItems<T extends { key: string }>(
  items: T[],
  onChange: (items: T[]) => void,
  opts: {
    /** The item's name in announcements, capitalised: "Block", "Rule". */
    noun: string;
    /** The id of the add controls, which take focus once the last item is removed. */
    addId: string;
  },
) {
  const { noun, addId } = opts;
  // Focus moves once the list has been drawn again.
  const [focusAfter, setFocusAfter] = useState<FocusAfter>(null);
  useEffect(() => {
    if (!focusAfter) return;
    const item = document.querySelector(`[data-item-key="${focusAfter.key}"]`);
    const target =
      item?.querySelector<HTMLElement>(focusAfter.selector) ??
      item?.querySelector<HTMLElement>('button:not(:disabled)');
    (target ?? document.getElementById(addId))?.focus();
    setFocusAfter(null);
  }, [focusAfter, addId]);

  return {
    /** Adds `item` last; focus goes to its first element matching `selector`. */
    add(item: T, selector: string, message: string) {
      onChange([...items, item]);
      setFocusAfter({ key: item.key, selector });
      announce(message);
    },
    move(index: number, by: -1 | 1) {
      const to = index + by;
      if (to < 0 || to >= items.length) return;
      const next = [...items];
      [next[index], next[to]] = [next[to], next[index]];
      onChange(next);
      // The same button while it can go on moving that way, else the other one.
      const way = by < 0 ? 'up' : 'down';
      setFocusAfter({ key: items[index].key, selector: `[data-move="${way}"]:not(:disabled)` });
      announce(`${noun} moved to position ${to + 1} of ${items.length}.`);
    },
    remove(index: number) {
      const next = items.filter((_, i) => i !== index);
      onChange(next);
      const neighbour = next[index] ?? next[index - 1];
      if (neighbour) setFocusAfter({ key: neighbour.key, selector: '[data-remove]' });
      else requestAnimationFrame(() => document.getElementById(addId)?.focus());
      announce(`${noun} ${index + 1} removed.`);
    },
  };
}

/** An item's Up, Down and Remove buttons, named with its noun and position ("Move rule 2 up"). */
export function ItemActions({
  noun,
  position,
  count,
  onMove,
  onRemove,
}: {
  noun: string;
  position: number;
  count: number;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const name = `${noun.toLowerCase()} ${position}`;
  return (
    <div className="block-actions">
      <button
        type="button"
        className="button button-small"
        data-move="up"
        aria-label={`Move ${name} up`}
        disabled={position === 1}
        onClick={() => onMove(-1)}
      >
        <span aria-hidden="true">↑</span> Up
      </button>
      <button
        type="button"
        className="button button-small"
        data-move="down"
        aria-label={`Move ${name} down`}
        disabled={position === count}
        onClick={() => onMove(1)}
      >
        <span aria-hidden="true">↓</span> Down
      </button>
      <button
        type="button"
        className="button button-small button-danger-quiet"
        data-remove
        aria-label={`Remove ${name}`}
        onClick={onRemove}
      >
        Remove
      </button>
    </div>
  );
}
