/**
 * Reading the imports of a file of source/ with TypeScript's own parser, for the architecture tests
 * (test/architecture/): the layers and engine rules, and what runs before the first frame.
 */
import ts from 'typescript';

/** A file of source/: its path relative to source/ and its text. */
export interface SourceFile {
	readonly rel: string;
	readonly text: string;
}

export function parse(file: SourceFile): ts.SourceFile {
	return ts.createSourceFile(file.rel, file.text, ts.ScriptTarget.Latest, false, file.rel.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/**
 * The modules a file loads when it runs: every `import … from`, `import '…'` and `export … from`
 * that is not type-only (`import type`, `export type`: erased). `import()` is not among them.
 */
export function staticImports(file: SourceFile): string[] {
	const out: string[] = [];
	for (const st of parse(file).statements) {
		if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier) && !st.importClause?.isTypeOnly) out.push(st.moduleSpecifier.text);
		else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) && !st.isTypeOnly) out.push(st.moduleSpecifier.text);
	}
	return out;
}
