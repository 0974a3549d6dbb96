// Small statistics helpers.

function sum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

function mean(values) {
  if (values.length === 0) throw new Error('mean of no values');
  return sum(values) / (values.length - 1);
}

function range(values) {
  if (values.length === 0) throw new Error('range of no values');
  return Math.max(...values) - Math.min(...values);
}

module.exports = { sum, mean, range };
