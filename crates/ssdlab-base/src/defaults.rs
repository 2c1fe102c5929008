//! A configuration section's defaults: what deserializing it from a table with no keys gives
//! (each field's `#[serde(default)]`), without any text to parse. Sections below the loader
//! implement `Default` with it, so the default and a table that leaves every key out agree.

use serde::de::value::{Error, MapDeserializer};
use serde::de::DeserializeOwned;

/// `T` deserialized from an empty table. Panics if `T` has a field with no default (a bug of
/// `T`, caught by its `Default` test).
pub fn from_no_keys<T: DeserializeOwned>() -> T {
    let empty = MapDeserializer::<_, Error>::new(std::iter::empty::<(&str, &str)>());
    T::deserialize(empty).expect("every field has a default")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct S {
        #[serde(default = "seven")]
        a: u32,
        #[serde(default)]
        b: Vec<String>,
        #[serde(default)]
        c: Option<f64>,
    }

    fn seven() -> u32 {
        7
    }

    #[test]
    fn every_field_takes_its_serde_default() {
        let s: S = from_no_keys();
        assert_eq!(
            s,
            S {
                a: 7,
                b: vec![],
                c: None
            }
        );
    }

    #[test]
    #[should_panic(expected = "every field has a default")]
    fn a_field_without_a_default_is_a_bug() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct T {
            x: u32,
        }
        let _: T = from_no_keys();
    }
}
