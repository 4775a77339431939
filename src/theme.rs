//! Light and dark themes: the system's preference unless the user chose one with the toggle, which is remembered
//! (localStorage `qpath-theme`). The choice is a class on `<html>` (`light` / `dark`) that the stylesheets honour.
//! Storage may be missing or throw (site data blocked, a sandboxed frame): the theme then works for the visit and is
//! not remembered ([`STORAGE_BLOCKED`]); nothing here throws.

const KEY: &str = "qpath-theme";

/// What the page says (once) when the browser does not let it remember the theme.
pub const STORAGE_BLOCKED: &str =
    "This browser does not let qpath store data here (site data blocked or a sandboxed frame): the theme you choose \
     works for this visit but is not remembered.";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

/// The page's localStorage, or `None` when the browser refuses it (the getter throwing is caught, not propagated).
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme a link's `theme=` names (`auto`: the system's), if any.
    pub fn from_link(name: &str) -> Option<Theme> {
        match name {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            "auto" | "system" => Some(Theme::System),
            _ => None,
        }
    }

    /// The next theme of the toggle: system → light → dark → system.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    /// The remembered theme (the system's when none is, or storage cannot be read), and whether storage can be read.
    pub fn load() -> (Theme, bool) {
        let Some(s) = storage() else { return (Theme::System, false) };
        match s.get_item(KEY) {
            Ok(v) => (
                v.as_deref()
                    .and_then(|v| Theme::from_link(v.trim_matches('"')))
                    .unwrap_or(Theme::System),
                true,
            ),
            Err(_) => (Theme::System, false),
        }
    }

    /// Remembers the theme (as the JSON string earlier versions stored through gloo); false when the browser refused.
    pub fn remember(self) -> bool {
        let Some(s) = storage() else { return false };
        match self {
            Theme::System => s.remove_item(KEY).is_ok(),
            t => s.set_item(KEY, &format!("\"{}\"", t.name())).is_ok(),
        }
    }

    /// Applies the theme to the document.
    pub fn apply(self) {
        if let Some(root) = gloo::utils::document().document_element() {
            let list = root.class_list();
            let _ = list.remove_2("light", "dark");
            if self != Theme::System {
                let _ = list.add_1(self.name());
            }
        }
    }
}
