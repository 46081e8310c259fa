// The product's name, as the README and the API reference give it: the sign-in page's heading,
// the top bar and every page's title say it (index.html too, for the moment before the app runs).
export const PRODUCT = 'Web Access';
