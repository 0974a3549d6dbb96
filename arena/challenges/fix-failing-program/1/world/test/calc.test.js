const { equal, throws } = require('./assert.js');
const { sum, mean, range } = require('../src/calc.js');

module.exports = [
  ['sum adds', () => equal(sum([1, 2, 3, 4]), 10, 'sum')],
  ['sum of nothing is 0', () => equal(sum([]), 0, 'empty sum')],
  ['mean of four', () => equal(mean([2, 4, 6, 8]), 5, 'mean')],
  ['mean of one', () => equal(mean([7]), 7, 'single mean')],
  ['mean of nothing throws', () => throws(() => mean([]), 'empty mean')],
  ['range', () => equal(range([3, 9, 1, 4]), 8, 'range')],
];
