//! Light and dark themes: the system's preference unless the user chose one with the toggle, which is remembered
//! (localStorage `qpath-theme`). The choice is a class on `<html>` (`light` / `dark`) that the stylesheets honour.

use gloo::storage::{LocalStorage, Storage};

const KEY: &str = "qpath-theme";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
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

    pub fn load() -> Theme {
        match LocalStorage::get::<String>(KEY).ok().as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// Remembers the theme and applies it to the document.
    pub fn apply(self) {
        match self {
            Theme::System => LocalStorage::delete(KEY),
            t => {
                let _ = LocalStorage::set(KEY, t.name());
            }
        }
        if let Some(root) = gloo::utils::document().document_element() {
            let list = root.class_list();
            let _ = list.remove_2("light", "dark");
            if self != Theme::System {
                let _ = list.add_1(self.name());
            }
        }
    }
}
