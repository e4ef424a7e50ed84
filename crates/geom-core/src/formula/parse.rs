//! The recursive-descent parser of [`super::Formula`] (grammar in the module documentation of
//! [`super`]): tokens with their columns, then one pass that builds the tree bottom-up, folding
//! constant subexpressions.

use super::{Fn1, FormulaError, MAX_DEPTH, MAX_NODES, Node, call};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Open,
    Close,
    Comma,
    End,
}

fn describe(t: &Token) -> String {
    match t {
        Token::Number(v) => format!("number {v}"),
        Token::Name(n) => format!("'{n}'"),
        Token::Plus => "'+'".into(),
        Token::Minus => "'-'".into(),
        Token::Star => "'*'".into(),
        Token::Slash => "'/'".into(),
        Token::Caret => "'^'".into(),
        Token::Open => "'('".into(),
        Token::Close => "')'".into(),
        Token::Comma => "','".into(),
        Token::End => "the end of the formula".into(),
    }
}

/// The tokens of `text`, each with its 1-based column.
fn lex(text: &str) -> Result<Vec<(Token, usize)>, (usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            // an exponent: e or E, an optional sign, digits
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let s: String = chars[start..i].iter().collect();
            let v: f64 = s.parse().map_err(|_| (col, format!("'{s}' is not a number")))?;
            out.push((Token::Number(v), col));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Token::Name(chars[start..i].iter().collect()), col));
            continue;
        }
        let t = match c {
            '+' => Token::Plus,
            '-' => Token::Minus,
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Token::Caret
            }
            '*' => Token::Star,
            '/' => Token::Slash,
            '^' => Token::Caret,
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            _ => return Err((col, format!("unexpected character '{c}'"))),
        };
        out.push((t, col));
        i += 1;
    }
    out.push((Token::End, chars.len() + 1));
    Ok(out)
}

fn function(name: &str) -> Option<(Option<Fn1>, usize)> {
    use Fn1::*;
    let f = match name {
        "sin" => Sin,
        "cos" => Cos,
        "tan" => Tan,
        "asin" => Asin,
        "acos" => Acos,
        "atan" => Atan,
        "sinh" => Sinh,
        "cosh" => Cosh,
        "tanh" => Tanh,
        "asinh" => Asinh,
        "acosh" => Acosh,
        "atanh" => Atanh,
        "exp" => Exp,
        "log" | "ln" => Ln,
        "sqrt" => Sqrt,
        "cbrt" => Cbrt,
        "abs" => Abs,
        "atan2" | "pow" => return Some((None, 2)),
        _ => return None,
    };
    Some((Some(f), 1))
}

struct Parser<'a> {
    tokens: Vec<(Token, usize)>,
    at: usize,
    variables: &'a [&'a str],
    params: &'a [(&'a str, f64)],
    nodes: Vec<Node>,
    /// The height of each node's subtree (the recursion depth of its evaluation).
    heights: Vec<usize>,
    depth: usize,
}

type Step<T> = Result<T, (usize, String)>;

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.tokens[self.at].0
    }
    fn column(&self) -> usize {
        self.tokens[self.at].1
    }
    fn next(&mut self) -> (Token, usize) {
        let t = self.tokens[self.at].clone();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        t
    }
    fn expect(&mut self, want: Token, what: &str) -> Step<()> {
        let (t, col) = self.next();
        if t == want { Ok(()) } else { Err((col, format!("expected {what}, found {}", describe(&t)))) }
    }

    /// Appends `node` (its children are built already), folding it to a constant when its
    /// children are constants; refuses a tree of more than [`MAX_NODES`] nodes or deeper than
    /// [`MAX_DEPTH`] (the recursion of the evaluation).
    fn push(&mut self, node: Node, col: usize) -> Step<usize> {
        if self.nodes.len() >= MAX_NODES {
            return Err((col, format!("the formula has more than {MAX_NODES} terms")));
        }
        let constant = |i: usize, nodes: &[Node]| match nodes[i] {
            Node::Const(v) => Some(v),
            _ => None,
        };
        let (children, folded): (&[usize], Option<f64>) = match node {
            Node::Neg(a) => (&[a][..], constant(a, &self.nodes).map(|v| -v)),
            Node::PowI(a, n) => (&[a][..], constant(a, &self.nodes).map(|x| x.powi(n))),
            Node::PowF(a, e) => (&[a][..], constant(a, &self.nodes).map(|x| x.powf(e))),
            Node::Call(f, a) => (&[a][..], constant(a, &self.nodes).map(|x| call(f, x))),
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Atan2(a, b)
            | Node::Pow(a, b) => {
                let both = constant(a, &self.nodes).zip(constant(b, &self.nodes));
                let v = both.map(|(x, y)| match node {
                    Node::Add(..) => x + y,
                    Node::Sub(..) => x - y,
                    Node::Mul(..) => x * y,
                    Node::Div(..) => x / y,
                    Node::Atan2(..) => x.atan2(y),
                    _ => x.powf(y),
                });
                (&[a, b][..], v)
            }
            Node::Const(_) | Node::Var(_) => (&[][..], None),
        };
        let height = 1 + children.iter().map(|&c| self.heights[c]).max().unwrap_or(0);
        if height > MAX_DEPTH {
            return Err((col, format!("the formula is nested more than {MAX_DEPTH} deep")));
        }
        let node = match folded {
            Some(v) => {
                // constant children built just before this node are dropped with it
                let n = self.nodes.len();
                if children.iter().rev().enumerate().all(|(k, &c)| c + 1 + k == n) {
                    self.nodes.truncate(n - children.len());
                    self.heights.truncate(n - children.len());
                }
                Node::Const(v)
            }
            None => node,
        };
        self.heights.push(if folded.is_some() { 1 } else { height });
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn enter(&mut self) -> Step<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((self.column(), format!("the formula is nested more than {MAX_DEPTH} deep")));
        }
        Ok(())
    }

    fn expr(&mut self) -> Step<usize> {
        self.enter()?;
        let mut left = self.term()?;
        loop {
            let col = self.column();
            let make: fn(usize, usize) -> Node = match self.peek() {
                Token::Plus => Node::Add,
                Token::Minus => Node::Sub,
                _ => break,
            };
            self.next();
            let right = self.term()?;
            left = self.push(make(left, right), col)?;
        }
        self.depth -= 1;
        Ok(left)
    }

    fn term(&mut self) -> Step<usize> {
        let mut left = self.unary()?;
        loop {
            let col = self.column();
            let make: fn(usize, usize) -> Node = match self.peek() {
                Token::Star => Node::Mul,
                Token::Slash => Node::Div,
                _ => break,
            };
            self.next();
            let right = self.unary()?;
            left = self.push(make(left, right), col)?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Step<usize> {
        let col = self.column();
        match self.peek() {
            Token::Minus => {
                self.next();
                self.enter()?;
                let a = self.unary()?;
                self.depth -= 1;
                self.push(Node::Neg(a), col)
            }
            Token::Plus => {
                self.next();
                self.enter()?;
                let a = self.unary()?;
                self.depth -= 1;
                Ok(a)
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Step<usize> {
        let base = self.atom()?;
        if *self.peek() != Token::Caret {
            return Ok(base);
        }
        let col = self.column();
        self.next();
        self.enter()?;
        let exponent = self.unary()?;
        self.depth -= 1;
        self.pow(base, exponent, col)
    }

    /// `base^exponent`: `powi` for a constant integer exponent, `powf` for another constant,
    /// `powd` otherwise.
    fn pow(&mut self, base: usize, exponent: usize, col: usize) -> Step<usize> {
        match self.nodes[exponent] {
            Node::Const(e) if exponent == self.nodes.len() - 1 => {
                self.nodes.pop();
                self.heights.pop();
                if e.fract() == 0.0 && e.abs() <= i32::MAX as f64 {
                    self.push(Node::PowI(base, e as i32), col)
                } else {
                    self.push(Node::PowF(base, e), col)
                }
            }
            _ => self.push(Node::Pow(base, exponent), col),
        }
    }

    fn atom(&mut self) -> Step<usize> {
        let (t, col) = self.next();
        match t {
            Token::Number(v) => self.push(Node::Const(v), col),
            Token::Open => {
                let e = self.expr()?;
                self.expect(Token::Close, "')'")?;
                Ok(e)
            }
            Token::Name(name) => {
                if let Some(k) = self.variables.iter().position(|v| *v == name) {
                    return self.push(Node::Var(k), col);
                }
                if let Some((_, v)) = self.params.iter().find(|(p, _)| *p == name) {
                    return self.push(Node::Const(*v), col);
                }
                if let Some((f, arity)) = function(&name) {
                    return self.call(&name, f, arity, col);
                }
                if name == "pi" {
                    return self.push(Node::Const(core::f64::consts::PI), col);
                }
                let mut known: Vec<&str> = self.variables.to_vec();
                known.extend(self.params.iter().map(|(p, _)| *p));
                Err((
                    col,
                    if known.is_empty() {
                        format!("unknown name '{name}'")
                    } else {
                        format!("unknown name '{name}' (variables and parameters: {})", known.join(", "))
                    },
                ))
            }
            other => Err((col, format!("expected a number, a name or '(', found {}", describe(&other)))),
        }
    }

    fn call(&mut self, name: &str, f: Option<Fn1>, arity: usize, col: usize) -> Step<usize> {
        if *self.peek() != Token::Open {
            return Err((self.column(), format!("expected '(' after the function '{name}'")));
        }
        self.next();
        let mut args = vec![self.expr()?];
        while *self.peek() == Token::Comma {
            self.next();
            args.push(self.expr()?);
        }
        self.expect(Token::Close, "')' or ','")?;
        if args.len() != arity {
            return Err((col, format!("'{name}' takes {arity} argument(s), got {}", args.len())));
        }
        match (f, name) {
            (Some(f), _) => self.push(Node::Call(f, args[0]), col),
            (None, "atan2") => self.push(Node::Atan2(args[0], args[1]), col),
            _ => self.pow(args[0], args[1], col),
        }
    }
}

/// The tree of `text` (module documentation of [`super`]).
pub(super) fn parse(text: &str, variables: &[&str], params: &[(&str, f64)]) -> Result<Vec<Node>, FormulaError> {
    let fail = |(column, message): (usize, String)| FormulaError { text: text.to_string(), column, message };
    let mut names: Vec<&str> = variables.to_vec();
    names.extend(params.iter().map(|(p, _)| *p));
    for (i, n) in names.iter().enumerate() {
        let valid = n.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !valid {
            return Err(fail((1, format!("'{n}' is not a valid variable or parameter name"))));
        }
        if names[..i].contains(n) {
            return Err(fail((1, format!("'{n}' is declared twice"))));
        }
    }
    if let Some((p, v)) = params.iter().find(|(_, v)| !v.is_finite()) {
        return Err(fail((1, format!("parameter '{p}' is not finite ({v})"))));
    }
    let tokens = lex(text).map_err(fail)?;
    let mut parser = Parser { tokens, at: 0, variables, params, nodes: Vec::new(), heights: Vec::new(), depth: 0 };
    if *parser.peek() == Token::End {
        return Err(fail((1, "the formula is empty".into())));
    }
    let root = parser.expr().map_err(fail)?;
    let (t, col) = parser.next();
    if t != Token::End {
        return Err(fail((col, format!("expected an operator or the end, found {}", describe(&t)))));
    }
    debug_assert_eq!(root, parser.nodes.len() - 1);
    Ok(parser.nodes)
}
