//! The words of the five proposals, each as an enum ordered from least to most risky, and
//! parsed the forgiving way: `UntrustedPublic`, `untrustedPublic`, `untrusted_public` and
//! `untrustedpublic` are one word.

/// Compares vocabulary words ignoring case and separators.
pub(crate) fn norm(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every word, in order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The canonical (camelCase) word.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word),+ }
            }

            /// Parses any spelling of a word; `None` for an unknown one.
            pub fn parse(s: &str) -> Option<$name> {
                let n = norm(s);
                Self::ALL.iter().copied().find(|v| norm(v.as_str()) == n)
            }
        }
    };
}

vocabulary! {
    /// Output sensitivity, `none < low < medium < high`.
    Level { None = "none", Low = "low", Medium = "medium", High = "high" }
}

vocabulary! {
    /// Data classes of action security metadata (`Sensitivity`).
    Class { None = "none", User = "user", Pii = "pii", Financial = "financial", Regulated = "regulated", Credentials = "credentials" }
}

vocabulary! {
    /// Where returned data comes from, most trusted last... so ordered by risk: untrusted is highest.
    Source { System = "system", User = "user", Internal = "internal", TrustedPublic = "trustedPublic", UntrustedPublic = "untrustedPublic" }
}

vocabulary! {
    /// Where input data may go, ordered by exposure.
    Destination { Ephemeral = "ephemeral", System = "system", User = "user", Internal = "internal", Public = "public" }
}

vocabulary! {
    /// What calling the tool does to the world.
    Outcomes { Benign = "benign", Consequential = "consequential", Irreversible = "irreversible" }
}

vocabulary! {
    /// `mcp.dev/effect`.
    Effect { Read = "read", Write = "write", Delete = "delete", External = "external" }
}

vocabulary! {
    /// `mcp.dev/resultSensitivity`.
    ResultSensitivity { Public = "public", Internal = "internal", Confidential = "confidential", Restricted = "restricted" }
}

impl Default for Level {
    /// A session starts with no sensitive data.
    fn default() -> Self {
        Level::None
    }
}

impl Class {
    /// The output level a returned data class implies.
    pub fn level(self) -> Level {
        match self {
            Class::Credentials => Level::High,
            Class::Regulated | Class::Financial | Class::Pii => Level::Medium,
            Class::User => Level::Low,
            Class::None => Level::None,
        }
    }
}

impl ResultSensitivity {
    pub fn level(self) -> Level {
        match self {
            ResultSensitivity::Public => Level::None,
            ResultSensitivity::Internal => Level::Low,
            ResultSensitivity::Confidential => Level::Medium,
            ResultSensitivity::Restricted => Level::High,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_word() {
        for s in ["UntrustedPublic", "untrustedPublic", "untrusted_public", "UNTRUSTED-PUBLIC", "untrustedpublic"] {
            assert_eq!(Source::parse(s), Some(Source::UntrustedPublic), "{s}");
        }
        assert_eq!(Class::parse("PII"), Some(Class::Pii));
        assert_eq!(Destination::parse("Elsewhere"), None);
    }

    #[test]
    fn orders_and_mappings() {
        assert!(Level::None < Level::Low && Level::Low < Level::Medium && Level::Medium < Level::High);
        assert_eq!(Class::Credentials.level(), Level::High);
        for c in [Class::Regulated, Class::Financial, Class::Pii] {
            assert_eq!(c.level(), Level::Medium);
        }
        assert_eq!((Class::User.level(), Class::None.level()), (Level::Low, Level::None));
        let levels: Vec<Level> = ResultSensitivity::ALL.iter().map(|r| r.level()).collect();
        assert_eq!(levels, [Level::None, Level::Low, Level::Medium, Level::High]);
    }
}
