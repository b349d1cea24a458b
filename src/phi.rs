//! Protected health information: values that may only live in the PHI vault.
//!
//! Every type here redacts itself in `Debug` so that a stray `{:?}` in a log line or an error
//! message cannot leak a name, an address or an identifier.

use std::fmt;

/// One string of protected health information (a name, an address line, an identifier…).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhiValue(String);

/// Longest vault value kept, in characters.
pub const MAX_VALUE_CHARS: usize = 512;

impl PhiValue {
    /// Wraps a value: control characters (PostgreSQL refuses NUL) become spaces, surrounding
    /// whitespace is trimmed, and the value is cut at [`MAX_VALUE_CHARS`] characters (longer
    /// than any real name or address; a bound so that a hostile value cannot bloat the vault
    /// and its index).
    pub fn new(value: impl Into<String>) -> Self {
        let value = value.into();
        let cleaned: String = value
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(MAX_VALUE_CHARS)
            .collect();
        PhiValue(cleaned.trim().to_string())
    }

    /// The raw value. Call sites are the vault writer and the privacy guard only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty after trimming.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for PhiValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PhiValue([redacted])")
    }
}

/// What a vault entry is; stored as text in `phi_vault.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PhiKind {
    /// A whole name as it would be written ("Mrs. Jane87 Doe12").
    FullName,
    /// A given name.
    GivenName,
    /// A family name.
    FamilyName,
    /// A name prefix ("Mrs.", "Dr.").
    NamePrefix,
    /// A name suffix ("PhD", "Jr.").
    NameSuffix,
    /// A maiden name (HumanName.use = maiden, or the mother's maiden name extension).
    MaidenName,
    /// Birth date as written in the resource (YYYY-MM-DD).
    BirthDate,
    /// One address line.
    AddressLine,
    /// A whole address on one line.
    Address,
    /// City.
    City,
    /// Postal code.
    PostalCode,
    /// Phone or fax number.
    Phone,
    /// E-mail address.
    Email,
    /// Social security number.
    Ssn,
    /// Medical record number.
    MedicalRecordNumber,
    /// Driver's licence.
    DriversLicense,
    /// Passport number.
    Passport,
    /// Any other identifier value.
    Identifier,
    /// Place of birth.
    BirthPlace,
    /// A name of one of the patient's contacts (next of kin, guardian, emergency contact).
    ContactName,
    /// A contact's phone number.
    ContactPhone,
    /// A contact's e-mail address.
    ContactEmail,
    /// A contact's address (a line, a city or the whole address).
    ContactAddress,
    /// The name of another person in the record: a practitioner, a related person, an
    /// encounter participant.
    PersonName,
    /// The name of an organization or a location.
    OrganizationName,
}

impl PhiKind {
    /// The stable name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            PhiKind::FullName => "full_name",
            PhiKind::GivenName => "given_name",
            PhiKind::FamilyName => "family_name",
            PhiKind::NamePrefix => "name_prefix",
            PhiKind::NameSuffix => "name_suffix",
            PhiKind::MaidenName => "maiden_name",
            PhiKind::BirthDate => "birth_date",
            PhiKind::AddressLine => "address_line",
            PhiKind::Address => "address",
            PhiKind::City => "city",
            PhiKind::PostalCode => "postal_code",
            PhiKind::Phone => "phone",
            PhiKind::Email => "email",
            PhiKind::Ssn => "ssn",
            PhiKind::MedicalRecordNumber => "mrn",
            PhiKind::DriversLicense => "drivers_license",
            PhiKind::Passport => "passport",
            PhiKind::Identifier => "identifier",
            PhiKind::BirthPlace => "birth_place",
            PhiKind::ContactName => "contact_name",
            PhiKind::ContactPhone => "contact_phone",
            PhiKind::ContactEmail => "contact_email",
            PhiKind::ContactAddress => "contact_address",
            PhiKind::PersonName => "person_name",
            PhiKind::OrganizationName => "organization_name",
        }
    }
}

impl PhiKind {
    /// Every kind.
    pub const ALL: [PhiKind; 25] = [
        PhiKind::FullName,
        PhiKind::GivenName,
        PhiKind::FamilyName,
        PhiKind::NamePrefix,
        PhiKind::NameSuffix,
        PhiKind::MaidenName,
        PhiKind::BirthDate,
        PhiKind::AddressLine,
        PhiKind::Address,
        PhiKind::City,
        PhiKind::PostalCode,
        PhiKind::Phone,
        PhiKind::Email,
        PhiKind::Ssn,
        PhiKind::MedicalRecordNumber,
        PhiKind::DriversLicense,
        PhiKind::Passport,
        PhiKind::Identifier,
        PhiKind::BirthPlace,
        PhiKind::ContactName,
        PhiKind::ContactPhone,
        PhiKind::ContactEmail,
        PhiKind::ContactAddress,
        PhiKind::PersonName,
        PhiKind::OrganizationName,
    ];

    /// Whether values of this kind are names of people (matched as a whole and part by part).
    pub fn is_person_name(self) -> bool {
        matches!(
            self,
            PhiKind::FullName
                | PhiKind::GivenName
                | PhiKind::FamilyName
                | PhiKind::MaidenName
                | PhiKind::ContactName
                | PhiKind::PersonName
        )
    }

    /// The kind stored as `name` in the database.
    pub fn parse(name: &str) -> Option<PhiKind> {
        PhiKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// One row of the PHI vault.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VaultEntry {
    /// What the value is.
    pub kind: PhiKind,
    /// The value itself (redacted in `Debug`).
    pub value: PhiValue,
}

/// Removes the digits Synthea appends to generated names ("Abe604" → "Abe").
pub fn strip_digits(name: &str) -> String {
    crate::text::strip_digits(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_value() {
        let entry = VaultEntry {
            kind: PhiKind::GivenName,
            value: PhiValue::new("Abe604"),
        };
        let printed = format!("{entry:?}");
        assert!(!printed.contains("Abe"), "{printed}");
        assert!(printed.contains("GivenName"));
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in PhiKind::ALL {
            assert_eq!(PhiKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(PhiKind::parse("nonsense"), None);
    }

    #[test]
    fn strips_synthea_digit_suffixes() {
        assert_eq!(strip_digits("Frami345"), "Frami");
        assert_eq!(strip_digits("O'Keefe54"), "O'Keefe");
    }
}
