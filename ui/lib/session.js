// The signed-in session: the bearer token in sessionStorage (with its expiry) and cached profile data.


const TOKEN_KEY = 'taskgate.accessToken'

export const HOME = 'agents' // the page signed-in operators land on

const TOKEN_EXP_KEY = 'taskgate.accessTokenExpiresAt'

export const session = {
  get token() {
    const exp = Number(sessionStorage.getItem(TOKEN_EXP_KEY) || 0)
    if (exp && Date.now() > exp) { this.clear(); return null }
    return sessionStorage.getItem(TOKEN_KEY)
  },
  set(accessToken, expiresIn) {
    sessionStorage.setItem(TOKEN_KEY, accessToken)
    if (Number(expiresIn) > 0) sessionStorage.setItem(TOKEN_EXP_KEY, String(Date.now() + Number(expiresIn) * 1000))
    else sessionStorage.removeItem(TOKEN_EXP_KEY)
    state.me = null
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY)
    sessionStorage.removeItem(TOKEN_EXP_KEY)
    state.me = null
  },
}

export const state = {
  me: null, // the /auth/me profile, cached while signed in
  options: null, // /auth/options, cached
}
