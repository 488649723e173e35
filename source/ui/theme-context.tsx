import {createContext, useContext} from 'react';
import {noColorTheme, type Theme} from './theme.js';

export const ThemeContext = createContext<Theme>(noColorTheme());

/** The active theme; panes take every colour from its tokens. */
export function useTheme(): Theme {
	return useContext(ThemeContext);
}
