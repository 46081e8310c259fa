import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardDigits, containsCardNumber, luhnValid } from './cards.js';

// Test numbers the card networks publish: Visa 16 and 13 digits, Amex 15, Diners 14, a 19-digit Visa.
const VALID = ['4242424242424242', '4222222222222', '378282246310005', '30569309025904', '4000056655665556783'];

test('the Luhn check tells a card number from a typo', () => {
  for (const n of VALID) assert.ok(luhnValid(n), n);
  assert.equal(luhnValid('4242424242424241'), false, 'one digit off');
  assert.equal(luhnValid('4242 4242'), false, 'digits only');
  assert.equal(luhnValid(''), false);
});

test('a card number is read with spaces or dashes between groups; its length and check digit are held to', () => {
  assert.equal(cardDigits('4242 4242 4242 4242'), '4242424242424242');
  assert.equal(cardDigits('3782-822463-10005'), '378282246310005');
  assert.equal(cardDigits(' 4242424242424242 '), '4242424242424242');
  assert.equal(cardDigits('4242424242424241'), undefined, 'check digit');
  assert.equal(cardDigits('424242424242'), undefined, '12 digits');
  assert.equal(cardDigits('42424242424242424242'), undefined, '20 digits');
  assert.equal(cardDigits('4242  4242 4242 4242'), undefined, 'two separators in a row');
  assert.equal(cardDigits('4242.4242.4242.4242'), undefined);
  assert.equal(cardDigits('4242 4242 4242 424x'), undefined);
});

test('a card number written into a task is found however its digits are grouped', () => {
  for (const text of [
    'Pay with 4242424242424242 please',
    'Pay with 4242 4242 4242 4242, exp 12/30',
    'card: 4242-4242-4242-4242',
    'Amex 3782 822463 10005 on file',
    'Diners 30569309025904.',
    'short Visa 4222222222222',
    'nineteen 4000 0566 5566 5556 783',
    'the card 4242 4242 4242 4242 2030 then the year',
    'ABC4242424242424242XYZ',
  ])
    assert.ok(containsCardNumber(text), text);
});

test('numbers that are not card numbers are left alone', () => {
  for (const text of [
    'Find the cheapest flight on 2026-12-24 for 2 adults',
    'Order 4242424242424241 is late', // fails the check digit
    'Call +1 415 555 0100 about invoice 123456789012', // 12 digits in a run
    'Tracking 1Z999AA10123456784',
    'id 123456789012345678901234', // an ungrouped 24-digit id holds no card
    'Total 1 234 567,89 EUR',
    '',
  ])
    assert.equal(containsCardNumber(text), false, text);
});
